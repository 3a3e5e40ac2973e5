/**
 * Turn-level recall on LoCoMo conversations (the public file format; data read at run time, never
 * committed). The method of ../shared/data/README.md, exactly: each conversation is stored as the store's
 * user (its sample id), one Engram session per LoCoMo session, messages in order, the speaker in `name` and
 * at the start of the content as `Speaker: text`, an image caption appended as ` [shares …]`, the session's
 * date as the message timestamp; every question with evidence is passed as written to
 * `store.search(question, { userId, limit: 50, includeEpisodes: false })`, and recall@k is the share of its
 * evidence turns among the first k hits, averaged over questions. Prints R@5 / R@10 / R@25 / R@50 overall,
 * per category and per split (tune / held-out conversations, see --tune).
 *
 *   pnpm eval:locomo [--data <file>] [--tune conv-26,conv-30,conv-42]
 *                    [--off windows,participants,...] [--json]
 *
 * Speaker A's turns are stored as `user`, speaker B's as `assistant` (the file does not say which is the
 * agent's user; the roles only matter to role filters, which this method does not use).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { openStore, type Store } from '../src/index.ts'
import { RANK_FEATURES, type RankFeatures } from '../src/search/rank.ts'
import { searchWithRanking } from '../src/store/evaluation.ts'

const K = [5, 10, 25, 50] as const
const CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
}
/** The dev conversations tuned on by default; the others of the file are reported as held out. */
const DEFAULT_TUNE = ['conv-26', 'conv-30', 'conv-42']

interface Turn {
  speaker: string
  dia_id: string
  text: string
  blip_caption?: string
}

interface Sample {
  sample_id: string
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string }
  qa: { question: string; evidence?: string[]; category: number }[]
}

const MONTHS = 'january february march april may june july august september october november december'.split(
  ' ',
)

/** "1:56 pm on 8 May, 2023" → ms since the epoch (UTC). */
function parseSessionDate(text: string): number {
  const m = /(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text)
  if (!m)
    throw new Error(`Unreadable session date ${JSON.stringify(text)}: expected "1:56 pm on 8 May, 2023".`)
  const month = MONTHS.indexOf((m[5] as string).toLowerCase())
  if (month < 0) throw new Error(`Unknown month in session date ${JSON.stringify(text)}.`)
  const hour = (Number(m[1]) % 12) + ((m[3] as string).toLowerCase() === 'pm' ? 12 : 0)
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))
}

/** The evidence ids of a question ("D1:3"; a few entries hold several, separated by spaces or ';'). */
const evidenceOf = (evidence: readonly string[] = []): string[] =>
  evidence
    .flatMap((e) => e.split(/[\s;,]+/))
    .map((e) => /^D(\d+):(\d+)$/.exec(e))
    .flatMap((m) => (m ? [`D${Number(m[1])}:${Number(m[2])}`] : []))

/** Stores a conversation; returns the dia id of every message id. */
async function load(store: Store, sample: Sample): Promise<Map<number, string>> {
  const c = sample.conversation
  const dia = new Map<number, string>()
  const sessions = Object.keys(c)
    .flatMap((key) => {
      const m = /^session_(\d+)$/.exec(key)
      return m && Array.isArray(c[key]) ? [Number(m[1])] : []
    })
    .sort((a, b) => a - b)
  for (const n of sessions) {
    const turns = c[`session_${n}`] as Turn[]
    const timestamp = parseSessionDate(String(c[`session_${n}_date_time`]))
    const session = await store.createSession({ source: 'locomo', userId: sample.sample_id })
    const stored = await store.appendMessages(
      session.id,
      turns.map((turn) => ({
        role: turn.speaker === c.speaker_a ? 'user' : 'assistant',
        name: turn.speaker,
        content: `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ''}`,
        timestamp,
      })),
    )
    for (const [i, message] of stored.entries()) {
      dia.set(message.id, (turns[i] as Turn).dia_id.replace(/^D(\d+):0*(\d+)$/, 'D$1:$2'))
    }
  }
  return dia
}

interface Result {
  sample: string
  category: number
  recall: Record<(typeof K)[number], number>
}

async function runLocomo(
  samples: readonly Sample[],
  ranking: Partial<RankFeatures> = {},
): Promise<{ results: Result[]; bytesPerMessage: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-locomo-'))
  const store = await openStore({ url: join(dir, 'locomo.db') })
  const results: Result[] = []
  let bytesPerMessage = 0
  let messages = 0
  try {
    const dia = new Map<number, string>()
    for (const sample of samples) for (const [id, d] of await load(store, sample)) dia.set(id, d)
    for (const sample of samples) {
      for (const qa of sample.qa) {
        const evidence = new Set(evidenceOf(qa.evidence))
        if (evidence.size === 0) continue
        const options = { userId: sample.sample_id, limit: 50, includeEpisodes: false }
        const hits = await searchWithRanking(store, qa.question, options, ranking)
        const ranked = hits.map((hit) => (hit.kind === 'message' ? dia.get(hit.messageId) : undefined))
        const recall = Object.fromEntries(
          K.map((k) => [
            k,
            ranked.slice(0, k).filter((d) => d !== undefined && evidence.has(d)).length / evidence.size,
          ]),
        ) as Result['recall']
        results.push({ sample: sample.sample_id, category: qa.category, recall })
      }
    }
    messages = dia.size
  } finally {
    await store.close()
    // after close (the WAL checked back into the file)
    if (messages > 0) bytesPerMessage = statSync(join(dir, 'locomo.db')).size / messages
    rmSync(dir, { recursive: true, force: true })
  }
  return { results, bytesPerMessage }
}

const pct = (n: number) => (100 * n).toFixed(1).padStart(6)

function row(label: string, results: readonly Result[]): string {
  const mean = (k: (typeof K)[number]) =>
    results.reduce((s, r) => s + r.recall[k], 0) / Math.max(1, results.length)
  return `${label.padEnd(28)}${String(results.length).padStart(5)}${K.map((k) => pct(mean(k))).join('')}`
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: '../shared/data/locomo-dev/locomo-dev.json' },
      tune: { type: 'string' },
      off: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  const path = resolve(values.data as string)
  let samples: Sample[]
  try {
    samples = JSON.parse(readFileSync(path, 'utf8')) as Sample[]
  } catch (cause) {
    throw new Error(
      `Reading the LoCoMo file ${path} failed (${(cause as Error).message}). Pass --data <file> (the public locomo10.json format).`,
    )
  }
  const off = (values.off ?? '').split(',').filter(Boolean)
  for (const f of off)
    if (!(RANK_FEATURES as readonly string[]).includes(f))
      throw new Error(`--off ${f}: not a ranking technique (${RANK_FEATURES.join(', ')}).`)
  const tune = new Set(values.tune === undefined ? DEFAULT_TUNE : values.tune.split(',').filter(Boolean))
  const { results, bytesPerMessage } = await runLocomo(
    samples,
    Object.fromEntries(off.map((f) => [f, false])),
  )
  if (values.json) {
    console.log(JSON.stringify({ results, bytesPerMessage }))
    return
  }
  console.log(
    `LoCoMo ${path}: ${samples.length} conversations, ${results.length} questions with evidence${off.length ? `; off: ${off.join(', ')}` : ''}`,
  )
  console.log(`${''.padEnd(28)}    n   R@5  R@10  R@25  R@50`)
  console.log(row('all', results))
  for (const [c, name] of Object.entries(CATEGORIES))
    console.log(
      row(
        `  ${name}`,
        results.filter((r) => r.category === Number(c)),
      ),
    )
  for (const [split, inSplit] of [
    ['tune', (r: Result) => tune.has(r.sample)],
    ['held-out', (r: Result) => !tune.has(r.sample)],
  ] as const) {
    const part = results.filter(inSplit)
    if (part.length === 0) continue
    console.log(row(`${split} (${[...new Set(part.map((r) => r.sample))].join(' ')})`, part))
    for (const [c, name] of Object.entries(CATEGORIES))
      console.log(
        row(
          `  ${split} ${name}`,
          part.filter((r) => r.category === Number(c)),
        ),
      )
  }
  console.log(`bytes on disk per message: ${bytesPerMessage.toFixed(0)}`)
}

await main()
