/**
 * Scale benchmark of @engram/core: search, size, cold open, peak RSS and restore at 10k, 100k
 * and 1M messages, and contention between writer processes.
 *
 *   pnpm bench:scale                          10k, 100k, 1M, then contention (several minutes)
 *   pnpm bench:scale --sizes 10k,100k         quick run
 *   --rounds N                                interleaved rounds (default 3 for search, 2 for contention)
 *   --no-contention / --only-contention       skip one part (both: redraw and reprint from the JSON)
 *   --contention-ms N                         how long each contention run writes (default 3000)
 *
 * Prints tables, writes bench/scale-results.json and bench/charts/*.svg. Every latency is reported next to
 * a floor measured in the same run on the same file (variants interleaved, each on its own connection);
 * the machine is shared, so ratios are the figures to read. Targets are information; the run never fails
 * on them.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { openStore } from '../src/index.ts'
import { spawnProcess, TSX_LOADER } from '../test/processes/spawn.ts'
import { queryWords } from './data.ts'
import { bytesByObject, checkpoint, openRaw } from './raw.ts'
import { lineChart } from './scale-charts.ts'
import { type ContentionResult, lastJson, runContention, VARIANT_LABELS } from './scale-contention.ts'
import { BIG_SESSION, BIG_SESSION_MESSAGES, Corpus, corpusPrefix, PER_SESSION } from './scale-corpus.ts'
import { fmt, log, median, percentile, rotate, table } from './scale-stats.ts'

// ---------------------------------------------------------------------------------------------- options
const argv = process.argv.slice(2)
const arg = (name: string) => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1] : undefined
}
const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s.trim())
  if (!m) throw new Error(`--sizes: cannot read "${s}" (use e.g. 10k,100k,1m)`)
  return Math.round(Number(m[1]) * ({ k: 1e3, m: 1e6 }[(m[2] ?? '').toLowerCase()] ?? 1))
}
const SIZES = (arg('--sizes') ?? '10k,100k,1m')
  .split(',')
  .map(parseSize)
  .sort((a, b) => a - b)
const ROUNDS = Number(arg('--rounds') ?? 3)
const CONTENTION = !argv.includes('--no-contention')
const SCALE = !argv.includes('--only-contention')
const CONTENTION_MS = Number(arg('--contention-ms') ?? 3000)
const SEED = 20250101
const TARGETS = {
  p95Ms: 50,
  medianVsFloor: 1.5,
  p95VsFloor: 0.4,
  bytesPerMessage: 1800,
  coldOpenMs: 50,
  contention8vs1: 0.8,
  readerP95VsSolo: 2,
}

const benchDir = fileURLToPath(new URL('.', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'engram-scale-'))
const cleanup = () => rmSync(tmp, { recursive: true, force: true })
process.on('exit', cleanup)
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    cleanup()
    process.exit(130)
  })

// ---------------------------------------------------------------------------------------------- queries
// 150 English and 50 Chinese words drawn from the first 10k messages, which every corpus size contains.
const prefix = corpusPrefix(SEED, 10).flatMap((s) => s.messages)
const words = queryWords(prefix, SEED)
const queries: { q: string; zh: boolean }[] = []
for (let i = 0, e = 0, z = 0; i < 200; i++) {
  if (i % 4 === 3) queries.push({ q: words.chinese[z++] as string, zh: true })
  else queries.push({ q: words.english[e++] as string, zh: false })
}
const queriesFile = join(tmp, 'queries.json')
writeFileSync(queriesFile, JSON.stringify(queries.map((x) => x.q)))

// ---------------------------------------------------------------------------------------------- per size
interface SizeResult {
  messages: number
  buildMsgsPerSec: number
  payloadBytesPerMessage: number
  fileBytes: number
  bytesPerMessage: number
  objects: { name: string; bytes: number; perMessage: number; share: number }[]
  search: Record<string, { medianMs: number; p95Ms: number; maxMs: number }>
  medianVsFloor: number
  chinese: { answered: number; topHitContainsWord: number; of: number }
  /** Median rows matched by the fastest and the slowest tenth of the queries (floor timings). */
  matches: { fastestTenth: number; slowestTenth: number; slowestTenthMs: number; usPerMatchOfSlowest: number }
  english: { answered: number; of: number }
  open: { medianMs: number; secondMedianMs: number; floorMedianMs: number; runs: number[] }
  rss: { baseMb: number; afterOpenMb: number; peakMb: number }
  restore: Record<string, { messages: number; oursMs: number; floorMs: number }>
}

const SEARCH_VARIANTS = ['ours', 'ours-default', 'floor'] as const
type SearchVariant = (typeof SEARCH_VARIANTS)[number]
const SEARCH_LABELS: Record<SearchVariant, string> = {
  ours: 'store.search, limit 20, no episodes',
  'ours-default': 'store.search, limit 20 (episodes too)',
  floor: 'floor: bare FTS5 MATCH "term" ORDER BY rank LIMIT 20',
}

async function measureSearch(path: string) {
  const oursStore = await openStore({ url: path })
  const defaultStore = await openStore({ url: path })
  const raw = openRaw(path)
  const bare = raw.prepare('SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20')
  const contentOf = raw.prepare('SELECT content FROM messages WHERE id = ?').pluck()
  const term = (q: string, zh: boolean) => (zh ? `"${[...q].join(' ')}"` : `"${q}"`)
  const run: Record<SearchVariant, (q: string, zh: boolean) => Promise<number> | number> = {
    ours: async (q) => (await oursStore.search(q, { limit: 20, includeEpisodes: false })).length,
    'ours-default': async (q) => (await defaultStore.search(q, { limit: 20 })).length,
    floor: (q, zh) => bare.all(term(q, zh)).length,
  }
  for (const v of SEARCH_VARIANTS) for (const { q, zh } of queries) await run[v](q, zh) // warm-up
  // variant → query → the times of each round
  const times = Object.fromEntries(SEARCH_VARIANTS.map((v) => [v, queries.map((): number[] => [])]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [qi, { q, zh }] of queries.entries()) {
      for (const v of rotate(SEARCH_VARIANTS, qi + round)) {
        const start = performance.now()
        await run[v](q, zh)
        times[v]?.[qi]?.push(performance.now() - start)
      }
    }
  }
  const chinese = { answered: 0, topHitContainsWord: 0, of: 0 }
  const english = { answered: 0, of: 0 }
  for (const { q, zh } of queries) {
    const hits = await oursStore.search(q, { limit: 20, includeEpisodes: false })
    if (!zh) {
      english.of++
      if (hits.length > 0) english.answered++
      continue
    }
    chinese.of++
    if (hits.length > 0) chinese.answered++
    if (hits[0] && String(contentOf.get(hits[0].messageId)).includes(q)) chinese.topHitContainsWord++
  }
  // Profile of the slow tail: how many rows the slowest and the fastest tenth of the queries match (a
  // ranked query scores every matching row before it can return the best 20).
  const countMatches = raw.prepare('SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?').pluck()
  const byTime = queries
    .map(({ q, zh }, qi) => ({
      ms: median(times.floor?.[qi] ?? []),
      matches: countMatches.get(term(q, zh)) as number,
    }))
    .sort((a, b) => a.ms - b.ms)
  const tenth = Math.max(1, Math.floor(byTime.length / 10))
  const matches = {
    fastestTenth: median(byTime.slice(0, tenth).map((x) => x.matches)),
    slowestTenth: median(byTime.slice(-tenth).map((x) => x.matches)),
    slowestTenthMs: median(byTime.slice(-tenth).map((x) => x.ms)),
    usPerMatchOfSlowest: median(byTime.slice(-tenth).map((x) => (x.ms * 1000) / Math.max(1, x.matches))),
  }
  await oursStore.close()
  await defaultStore.close()
  raw.close()
  const stat = (v: SearchVariant) => {
    const perQuery = (times[v] ?? []).map(median)
    return { medianMs: median(perQuery), p95Ms: percentile(perQuery, 95), maxMs: Math.max(...perQuery) }
  }
  const search = Object.fromEntries(SEARCH_VARIANTS.map((v) => [v, stat(v)]))
  return { search, chinese, english, matches }
}

function measureBytes(path: string, messages: number) {
  const raw = openRaw(path)
  checkpoint(raw)
  const fileBytes = statSync(path).size
  const objects = bytesByObject(raw).map((o) => ({
    ...o,
    perMessage: o.bytes / messages,
    share: o.bytes / fileBytes,
  }))
  raw.close()
  return { fileBytes, bytesPerMessage: fileBytes / messages, objects }
}

/** Cold open and peak RSS, each in a fresh process (3 runs; the raw floor goes first in every other one). */
async function measureProbe(path: string) {
  const runs: {
    openMs: number
    secondOpenMs: number
    floorOpenMs: number
    baseRssKb: number
    openedRssKb: number
    peakRssKb: number
  }[] = []
  for (let i = 0; i < 3; i++) {
    runs.push(
      await lastJson(
        spawnProcess(process.execPath, [
          '--import',
          TSX_LOADER,
          join(benchDir, 'scale-probe.ts'),
          path,
          queriesFile,
          String(i % 2),
        ]),
        300_000,
      ),
    )
  }
  const mb = (kb: number) => kb / 1024
  return {
    open: {
      medianMs: median(runs.map((r) => r.openMs)),
      secondMedianMs: median(runs.map((r) => r.secondOpenMs)),
      floorMedianMs: median(runs.map((r) => r.floorOpenMs)),
      runs: runs.map((r) => r.openMs),
    },
    rss: {
      baseMb: mb(median(runs.map((r) => r.baseRssKb))),
      afterOpenMb: mb(median(runs.map((r) => r.openedRssKb))),
      peakMb: mb(Math.max(...runs.map((r) => r.peakRssKb))),
    },
  }
}

async function measureRestore(path: string, sessions: { id: string; messages: number; reps: number }[]) {
  const store = await openStore({ url: path })
  const raw = openRaw(path)
  const floor = raw.prepare(
    'SELECT id, role, content, content_parts, tool_calls, tool_call_id, name FROM messages WHERE session_id = ? ORDER BY id',
  )
  const out: Record<string, { messages: number; oursMs: number; floorMs: number }> = {}
  for (const s of sessions) {
    const ours: number[] = []
    const bare: number[] = []
    const variants = [
      async () => {
        const start = performance.now()
        const got = await store.getMessages(s.id)
        ours.push(performance.now() - start)
        if (got.length !== s.messages) throw new Error(`restore of ${s.id}: ${got.length} messages`)
      },
      () => {
        const start = performance.now()
        floor.all(s.id)
        bare.push(performance.now() - start)
      },
    ]
    for (const v of variants) await v() // warm-up
    for (let rep = 0; rep < s.reps; rep++) for (const v of rotate(variants, rep)) await v()
    out[String(s.messages)] = { messages: s.messages, oursMs: median(ours), floorMs: median(bare) }
  }
  await store.close()
  raw.close()
  return out
}

async function runScale(): Promise<SizeResult[]> {
  const path = join(tmp, 'scale.db')
  const store = await openStore({ url: path })
  const corpus = new Corpus(store, SEED)
  const results: SizeResult[] = []
  for (const size of SIZES) {
    const before = corpus.size
    const start = performance.now()
    await corpus.growTo(size, (n) => log(`corpus: ${fmt(n)} messages`))
    const buildMsgsPerSec = ((corpus.size - before) / (performance.now() - start)) * 1000
    log(`size ${fmt(size)}: built (${fmt(buildMsgsPerSec)} msgs/s); measuring`)
    const bytes = measureBytes(path, corpus.size)
    const { search, chinese, english, matches } = await measureSearch(path)
    const probe = await measureProbe(path)
    const restoreSessions = [{ id: corpus.sampleSession, messages: PER_SESSION, reps: 20 }]
    if (corpus.hasBigSession)
      restoreSessions.push({ id: BIG_SESSION, messages: BIG_SESSION_MESSAGES, reps: 5 })
    const restore = await measureRestore(path, restoreSessions)
    const r: SizeResult = {
      messages: corpus.size,
      buildMsgsPerSec,
      payloadBytesPerMessage: corpus.payloadBytes / corpus.size,
      ...bytes,
      search,
      medianVsFloor: (search.ours?.medianMs ?? Number.NaN) / (search.floor?.medianMs ?? Number.NaN),
      chinese,
      english,
      matches,
      ...probe,
      restore,
    }
    results.push(r)
    log(
      `size ${fmt(size)}: ours median ${fmt(search.ours?.medianMs ?? Number.NaN, 2)} / p95 ${fmt(search.ours?.p95Ms ?? Number.NaN, 2)} ms, ${fmt(r.bytesPerMessage)} B/msg, open ${fmt(probe.open.medianMs, 1)} ms`,
    )
  }
  await store.close()
  rmSync(path, { force: true })
  return results
}

// ---------------------------------------------------------------------------------------------- report
function scaleTables(results: SizeResult[]): string {
  const sizes = results.map((r) => fmt(r.messages))
  const s = (r: SizeResult, v: SearchVariant) => r.search[v] ?? { medianMs: Number.NaN, p95Ms: Number.NaN }
  const out = [
    table(
      `Search, ${queries.length} queries (150 English, 50 Chinese), ${ROUNDS} interleaved rounds: median / p95 ms`,
      [
        ['', ...sizes, 'target at 1M'],
        ...SEARCH_VARIANTS.map((v) => [
          SEARCH_LABELS[v],
          ...results.map((r) => `${fmt(s(r, v).medianMs, 2)} / ${fmt(s(r, v).p95Ms, 2)}`),
          v === 'ours' ? `p95 < ${TARGETS.p95Ms}` : '',
        ]),
        ['median ours / floor', ...results.map((r) => fmt(r.medianVsFloor, 2)), `≤ ${TARGETS.medianVsFloor}`],
        [
          'p95 ours / floor p95 (recency tiers: see src/dialects/sqlite/recency-tiers.ts)',
          ...results.map((r) => fmt(s(r, 'ours').p95Ms / s(r, 'floor').p95Ms, 2)),
          `≤ ${TARGETS.p95VsFloor}`,
        ],
        [
          'Chinese queries answered (top hit has the word)',
          ...results.map((r) => `${r.chinese.answered}/${r.chinese.of} (${r.chinese.topHitContainsWord})`),
          'all',
        ],
        ['English queries answered', ...results.map((r) => `${r.english.answered}/${r.english.of}`), ''],
        [
          'rows matched: fastest / slowest tenth of queries',
          ...results.map((r) =>
            r.matches ? `${fmt(r.matches.fastestTenth)} / ${fmt(r.matches.slowestTenth)}` : '—',
          ),
          '',
        ],
        [
          'floor µs per matched row, slowest tenth',
          ...results.map((r) => (r.matches ? fmt(r.matches.usPerMatchOfSlowest, 2) : '—')),
          '',
        ],
      ],
    ),
    table('Size on disk after wal_checkpoint(TRUNCATE)', [
      ['', ...sizes, 'target'],
      [
        'bytes per message',
        ...results.map((r) => fmt(r.bytesPerMessage)),
        `≤ ${fmt(TARGETS.bytesPerMessage)}`,
      ],
      [
        'payload (text + tool-call JSON) per message',
        ...results.map((r) => fmt(r.payloadBytesPerMessage)),
        '',
      ],
      ['file size (MB)', ...results.map((r) => fmt(r.fileBytes / 1e6, 1)), ''],
      [
        'bulk build through appendMessages(1,000) (msgs/s)',
        ...results.map((r) => fmt(r.buildMsgsPerSec)),
        '',
      ],
    ]),
    table('Bytes per message by table / index (dbstat) — share of the file', [
      ['', ...sizes],
      ...[...new Set(results.flatMap((r) => r.objects.map((o) => o.name)))]
        .filter((name) => results.some((r) => (r.objects.find((o) => o.name === name)?.perMessage ?? 0) >= 1))
        .map((name) => [
          name,
          ...results.map((r) => {
            const o = r.objects.find((x) => x.name === name)
            return o ? `${fmt(o.perMessage)} (${fmt(o.share * 100, 1)}%)` : '—'
          }),
        ]),
    ]),
    table(
      'Cold open in a fresh process (openStore incl. pragmas, FTS5 check, migration check), median of 3',
      [
        ['', ...sizes, 'target at 1M'],
        ['openStore (ms)', ...results.map((r) => fmt(r.open.medianMs, 1)), `< ${TARGETS.coldOpenMs}`],
        [
          'second openStore in the same process (ms)',
          ...results.map((r) => fmt(r.open.secondMedianMs, 1)),
          '',
        ],
        ['floor: new Database + read schema (ms)', ...results.map((r) => fmt(r.open.floorMedianMs, 1)), ''],
        ['peak RSS of the search workload (MB)', ...results.map((r) => fmt(r.rss.peakMb, 1)), ''],
        [
          'RSS after imports / after open (MB)',
          ...results.map((r) => `${fmt(r.rss.baseMb)} / ${fmt(r.rss.afterOpenMb)}`),
          '',
        ],
      ],
    ),
    table('Restore (getMessages) of one session: ours / floor (raw 7-column SELECT), median ms', [
      ['', ...sizes],
      ...[String(PER_SESSION), String(BIG_SESSION_MESSAGES)].map((k) => [
        `${fmt(Number(k))} messages`,
        ...results.map((r) => {
          const x = r.restore[k]
          return x ? `${fmt(x.oursMs, 1)} / ${fmt(x.floorMs, 1)} (${fmt(x.oursMs / x.floorMs, 2)}×)` : '—'
        }),
      ]),
    ]),
  ]
  return out.join('\n')
}

function contentionTables(c: ContentionResult): string {
  const one = (variant: string) =>
    c.summary.find((r) => r.writers === 1 && r.variant === variant)?.msgsPerSec ?? Number.NaN
  return [
    table(
      `Contention: N processes appending to one file for ${c.durationMs} ms, median of ${c.rounds} rounds`,
      [
        [
          'writers × retry',
          'msgs/s',
          '÷ 1 process',
          'p50 ms',
          'p95 ms',
          'max ms',
          '≥1 ms',
          '≥100 ms',
          'CPU cores',
          'errors',
        ],
        ...c.summary.map((r) => [
          `${r.writers} × ${r.variant}`,
          fmt(r.msgsPerSec),
          fmt(r.msgsPerSec / one(r.variant), 2),
          fmt(r.p50Ms, 2),
          fmt(r.p95Ms, 2),
          fmt(r.maxMs, 1),
          `${fmt((r.over1Ms ?? Number.NaN) * 100, 1)}%`,
          `${fmt((r.over100Ms ?? Number.NaN) * 100, 2)}%`,
          fmt(r.cpuCores, 2),
          String(r.errors),
        ]),
      ],
    ),
    table('Reader searching continuously (p95 / median ms)', [
      ['', 'value', 'target'],
      ['solo', `${fmt(c.reader.soloP95Ms, 2)} / ${fmt(c.reader.soloMedianMs, 2)}`, ''],
      ['with 8 writers', `${fmt(c.reader.with8P95Ms, 2)} / ${fmt(c.reader.with8MedianMs, 2)}`, ''],
      [
        'beside 8 busy loops (CPU share only, no database)',
        `${fmt(c.reader.busy8P95Ms, 2)} / ${fmt(c.reader.busy8MedianMs, 2)}`,
        '',
      ],
      [
        'p95 ratio with 8 writers / solo',
        fmt(c.reader.with8P95Ms / c.reader.soloP95Ms, 2),
        `< ${TARGETS.readerP95VsSolo}`,
      ],
      [
        'p95 ratio with 8 writers / beside 8 busy loops',
        fmt(c.reader.with8P95Ms / c.reader.busy8P95Ms, 2),
        '',
      ],
      ['errors (reader and writers)', String(c.reader.errors), '0'],
    ]),
  ].join('\n')
}

function writeCharts(results: SizeResult[], contention: ContentionResult | null): string[] {
  const chartsDir = join(benchDir, 'charts')
  mkdirSync(chartsDir, { recursive: true })
  const files: [string, string][] = []
  if (results.length > 0) {
    const line = (name: string, pick: (r: SizeResult) => number, dashed = false) => ({
      name,
      dashed,
      points: results.map((r) => [r.messages, pick(r)] as const),
    })
    files.push([
      'search-latency.svg',
      lineChart({
        title: 'Search latency vs corpus size (200 queries)',
        xLabel: 'messages (log scale)',
        yLabel: 'ms',
        logX: true,
        series: [
          line('store.search median', (r) => r.search.ours?.medianMs ?? Number.NaN),
          line('store.search p95', (r) => r.search.ours?.p95Ms ?? Number.NaN),
          line('floor (bare MATCH) median', (r) => r.search.floor?.medianMs ?? Number.NaN, true),
          line('floor (bare MATCH) p95', (r) => r.search.floor?.p95Ms ?? Number.NaN, true),
        ],
      }),
    ])
    files.push([
      'bytes-per-message.svg',
      lineChart({
        title: 'Bytes on disk per message vs corpus size',
        xLabel: 'messages (log scale)',
        yLabel: 'bytes / message',
        logX: true,
        target: { y: TARGETS.bytesPerMessage, label: `target ≤ ${fmt(TARGETS.bytesPerMessage)}` },
        series: [
          line('whole file', (r) => r.bytesPerMessage),
          line('messages table', (r) => r.objects.find((o) => o.name === 'messages')?.perMessage ?? 0),
          line(
            'messages_fts_data',
            (r) => r.objects.find((o) => o.name === 'messages_fts_data')?.perMessage ?? 0,
          ),
          line('payload (text + tool JSON)', (r) => r.payloadBytesPerMessage, true),
        ],
      }),
    ])
  }
  if (contention) {
    const by = (variant: string, pick: (r: ContentionResult['summary'][number]) => number) =>
      contention.summary.filter((r) => r.variant === variant).map((r) => [r.writers, pick(r)] as const)
    files.push([
      'contention-throughput.svg',
      lineChart({
        title: 'Aggregate append throughput vs writer processes',
        xLabel: 'writer processes',
        yLabel: 'messages / s',
        series: [
          ...Object.entries(VARIANT_LABELS)
            .filter(([variant]) => contention.summary.some((r) => r.variant === variant))
            .map(([variant, name]) => ({ name, points: by(variant, (r) => r.msgsPerSec) })),
        ],
      }),
    ])
    files.push([
      'contention-p95.svg',
      lineChart({
        title: 'p95 append latency vs writer processes',
        xLabel: 'writer processes',
        yLabel: 'ms',
        series: [
          ...Object.entries(VARIANT_LABELS)
            .filter(([variant]) => contention.summary.some((r) => r.variant === variant))
            .map(([variant, name]) => ({ name, points: by(variant, (r) => r.p95Ms) })),
        ],
      }),
    ])
  }
  for (const [name, svg] of files) writeFileSync(join(chartsDir, name), svg)
  return files.map(([name]) => `packages/core/bench/charts/${name}`)
}

const file = join(benchDir, 'scale-results.json')
const previous: { sizes?: SizeResult[]; contention?: ContentionResult | null } = existsSync(file)
  ? JSON.parse(readFileSync(file, 'utf8'))
  : {}
log(
  `engram scale bench: sizes ${SIZES.map((s) => fmt(s)).join(', ')}, ${ROUNDS} round(s), temp folder ${tmp}`,
)
// A skipped part keeps its figures from the previous run's JSON (and is drawn and printed from them).
const results = SCALE ? await runScale() : (previous.sizes ?? [])
let contention: ContentionResult | null = previous.contention ?? null
if (CONTENTION) {
  const template = join(tmp, 'contention-template.db')
  const store = await openStore({ url: template })
  const corpus = new Corpus(store, SEED)
  await corpus.growTo(10_000, () => undefined)
  await store.close()
  const dir = join(tmp, 'contention')
  mkdirSync(dir)
  contention = await runContention(template, dir, queriesFile, {
    rounds: Number(arg('--rounds') ?? 2),
    ms: CONTENTION_MS,
  })
}
const charts = writeCharts(results, contention)
console.log(
  `\nengram scale benchmark — Node ${process.version}, ${new Date().toISOString()}; shared machine, read the ratios` +
    (results.length ? `\n${scaleTables(results)}` : '') +
    (contention ? `\n${contentionTables(contention)}` : '') +
    `\n\ncharts: ${charts.join(', ')}\n`,
)
const out = {
  date: new Date().toISOString(),
  node: process.version,
  rounds: ROUNDS,
  corpus:
    'realistic mix (data.ts), sessions of 1,000 written with store.appendMessages (one transaction each)',
  targets: TARGETS,
  queries: { english: words.english, chinese: words.chinese },
  sizes: results,
  contention,
  charts,
}
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`)
log(`wrote ${file}`)
