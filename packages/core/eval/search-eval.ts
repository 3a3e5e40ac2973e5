/**
 * Retrieval-quality harness for `store.search`.
 *
 *   npx tsx packages/core/eval/search-eval.ts [--json] [--driver=better-sqlite3|libsql] [--postgres] [--verbose]
 *
 * --postgres runs it on a throwaway PostgreSQL server (test/postgres-server.ts) instead of an SQLite file.
 *
 * Loads eval/search-dataset.json into a fresh store (temp folder, public API only), runs every query with
 * `limit: 10` and prints recall@5, recall@10 and MRR per language, per query kind/length bucket and overall.
 * Recall@k is |relevant ∩ top k| / min(|relevant|, k), so a perfect ranking scores 1 even when more than k
 * messages are relevant. MRR uses the first relevant hit in the top 10.
 * Exits 1 when a CJK verbatim-substring query with at most 10 relevant messages misses one in its top 10.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openStore } from '../src/index.ts'
import type { Dataset, Lang } from './dataset.ts'

interface QueryResult {
  id: string
  language: Lang
  kind: string
  bucket: string
  query: string
  relevant: number
  found: string[]
  recall5: number
  recall10: number
  rr: number
  gated: boolean
}

const args = process.argv.slice(2)
const json = args.includes('--json')
const verbose = args.includes('--verbose')
const driverArg = args.find((a) => a.startsWith('--driver='))?.slice('--driver='.length)
const driver = driverArg === 'libsql' || driverArg === 'better-sqlite3' ? driverArg : undefined
const postgres = args.includes('--postgres')

const here = dirname(fileURLToPath(import.meta.url))
const data = JSON.parse(readFileSync(join(here, 'search-dataset.json'), 'utf8')) as Dataset

function bucketOf(q: Dataset['queries'][number]): string {
  if (q.kind === 'natural') return 'natural'
  if (q.language === 'en') return q.length === 1 ? '1 word' : 'multi-word'
  return q.length >= 4 ? '4+ chars' : `${q.length} char${q.length === 1 ? '' : 's'}`
}

async function main() {
  const started = performance.now()
  const dir = mkdtempSync(join(tmpdir(), 'engram-search-eval-'))
  // imported only when asked for: it starts a server from the test helpers
  const server = postgres ? await (await import('../test/postgres-server.ts')).startPostgres() : undefined
  const store = await openStore(
    server
      ? { url: server.url, schema: 'search_eval' }
      : driver
        ? { url: join(dir, 'eval.db'), driver }
        : { url: join(dir, 'eval.db') },
  )
  const keyById = new Map<number, string>()
  const results: QueryResult[] = []
  let loadMs = 0
  let queryMs = 0
  try {
    let t0 = performance.now()
    for (const s of data.sessions) {
      const session = await store.createSession({ source: 'cli', model: 'm', title: s.title })
      for (const m of s.messages) {
        const stored = await store.appendMessage(session.id, { role: m.role, content: m.content })
        keyById.set(stored.id, m.key)
      }
    }
    loadMs = performance.now() - t0
    t0 = performance.now()
    for (const q of data.queries) {
      const hits = await store.search(q.query, { limit: 10 })
      const found = hits.flatMap((h) =>
        h.kind === 'message' ? [keyById.get(h.messageId) ?? `?${h.messageId}`] : [],
      )
      const rel = new Set(q.relevant)
      const hitsAt = (k: number) => found.slice(0, k).filter((key) => rel.has(key)).length
      const first = found.findIndex((key) => rel.has(key))
      results.push({
        id: q.id,
        language: q.language,
        kind: q.kind,
        bucket: bucketOf(q),
        query: q.query,
        relevant: rel.size,
        found,
        recall5: hitsAt(5) / Math.min(rel.size, 5),
        recall10: hitsAt(10) / Math.min(rel.size, 10),
        rr: first < 0 ? 0 : 1 / (first + 1),
        gated: q.language !== 'en' && q.kind === 'verbatim' && rel.size <= 10,
      })
    }
    queryMs = performance.now() - t0
  } finally {
    await store.close()
    server?.stop()
    rmSync(dir, { recursive: true, force: true })
  }

  const summarize = (rs: QueryResult[]) => ({
    queries: rs.length,
    recall5: rs.reduce((a, r) => a + r.recall5, 0) / (rs.length || 1),
    recall10: rs.reduce((a, r) => a + r.recall10, 0) / (rs.length || 1),
    mrr: rs.reduce((a, r) => a + r.rr, 0) / (rs.length || 1),
  })
  const groups: [string, QueryResult[]][] = []
  for (const lang of ['en', 'zh', 'ja', 'ko'] as const) {
    const rs = results.filter((r) => r.language === lang)
    groups.push([lang, rs])
    const buckets = [...new Set(rs.map((r) => r.bucket))].sort()
    for (const b of buckets) groups.push([`  ${lang} ${b}`, rs.filter((r) => r.bucket === b)])
  }
  for (const kind of ['verbatim', 'word', 'identifier', 'stem', 'natural']) {
    groups.push([`kind ${kind}`, results.filter((r) => r.kind === kind)])
  }
  const gated = results.filter((r) => r.gated)
  groups.push(['CJK verbatim (≤10 relevant)', gated], ['overall', results])
  const table = groups.map(([name, rs]) => ({ group: name, ...summarize(rs) }))
  const failures = results.filter((r) => r.recall10 < 1)
  const gateFailures = gated.filter((r) => r.recall10 < 1)
  const messages = data.sessions.reduce((a, s) => a + s.messages.length, 0)

  if (json) {
    const out = {
      driver: postgres ? 'postgres' : (driver ?? 'default'),
      messages,
      queries: results.length,
      timings: { loadMs, queryMs, totalMs: performance.now() - started },
      table,
      gate: { passed: gateFailures.length === 0, failures: gateFailures.map((r) => r.id) },
      results,
    }
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`)
  } else {
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7)
    console.log(
      `search eval: ${messages} messages, ${results.length} queries, driver ${postgres ? 'postgres' : (driver ?? 'default')}`,
    )
    console.log(
      `${'group'.padEnd(30)} ${'n'.padStart(4)} ${'R@5'.padStart(7)} ${'R@10'.padStart(7)} ${'MRR'.padStart(7)}`,
    )
    for (const row of table) {
      console.log(
        `${row.group.padEnd(30)} ${String(row.queries).padStart(4)} ${pct(row.recall5)} ${pct(row.recall10)} ${pct(row.mrr)}`,
      )
    }
    const shown = verbose ? failures : failures.slice(0, 25)
    if (shown.length > 0) console.log(`\nqueries with recall@10 < 100% (${failures.length}):`)
    for (const r of shown) {
      console.log(
        `  ${r.id} ${r.kind} ${JSON.stringify(r.query)}: ${pct(r.recall10)} of ${r.relevant} relevant`,
      )
    }
    console.log(
      `\nload ${loadMs.toFixed(0)} ms, ${results.length} queries ${queryMs.toFixed(0)} ms; ` +
        `CJK verbatim gate: ${gateFailures.length === 0 ? 'PASS' : `FAIL (${gateFailures.length})`}`,
    )
  }
  if (gateFailures.length > 0) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 2
})
