/**
 * Design experiments behind the benchmark's suggestions (not part of `pnpm bench`):
 *   npx tsx packages/core/bench/experiments.ts [--rounds N] [--messages N]
 * A: W1 appends at the raw better-sqlite3 level (values pre-encoded, one transaction each) with variants of
 *    the FTS5 design and settings. B: the store's search SQL with variants, over the same 100k messages.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openStore } from '../src/index.ts'
import { toMatchQuery } from '../src/search/query.ts'
import { encodeMessage, MESSAGE_COLUMNS } from '../src/store/message-codec.ts'
import { Generator, queryWords } from './data.ts'
import { openRaw } from './raw.ts'

const argv = process.argv.slice(2)
const arg = (name: string, dflt: number) => {
  const i = argv.indexOf(name)
  return i >= 0 ? Number(argv[i + 1]) : dflt
}
const ROUNDS = arg('--rounds', 3)
const N = arg('--messages', 10_000)
const SEARCH_N = arg('--search-messages', 100_000)
const only = argv.includes('--search-only') ? 'search' : argv.includes('--append-only') ? 'append' : 'both'
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(0.95 * xs.length) - 1] as number
const tmp = mkdtempSync(join(tmpdir(), 'engram-exp-'))
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))
let seq = 0

const data = new Generator(20250101).dataset(Math.max(N, SEARCH_N) / 1000, 1000, 'sess')
const now = Date.now()
const rows = data.all
  .slice(0, N)
  .map(({ sessionId, message }) => ({ sessionId, values: encodeMessage(message, now).values }))

/** Index text without the tool-call arguments (names only), to see what indexing the JSON costs. */
const namesOnly = data.all.slice(0, N).map(
  ({ message }) =>
    encodeMessage(
      {
        ...message,
        tool_calls: Array.isArray(message.tool_calls)
          ? message.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: '' } }))
          : message.tool_calls,
      },
      now,
    ).values[8],
)

type Variant = { key: string; setup: string; insert?: 'contentless' | 'namesOnly' }
const BASE_FTS = `CREATE VIRTUAL TABLE messages_fts USING fts5(body, content='messages_fts_source', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'`
const VARIANTS: Variant[] = [
  { key: 'current', setup: '' },
  { key: 'no-porter', setup: `DROP TABLE messages_fts; ${BASE_FTS.replace('porter ', '')});` },
  { key: 'automerge=8', setup: "INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 8);" },
  { key: 'automerge=16', setup: "INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 16);" },
  { key: 'automerge=2', setup: "INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 2);" },
  { key: 'pgsz=4000', setup: "INSERT INTO messages_fts(messages_fts, rank) VALUES('pgsz', 4000);" },
  { key: 'cache 32MB', setup: 'PRAGMA cache_size = -32000;' },
  { key: 'wal_autocheckpoint=10000', setup: 'PRAGMA wal_autocheckpoint = 10000;' },
  {
    key: 'automerge=16 + wal_autocheckpoint=10000',
    setup:
      "INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 16); PRAGMA wal_autocheckpoint = 10000;",
  },
  { key: 'detail=column (no phrases!)', setup: `DROP TABLE messages_fts; ${BASE_FTS}, detail='column');` },
  { key: 'tool args not indexed', setup: '', insert: 'namesOnly' },
  {
    key: 'contentless_delete, no search_text col',
    setup: `DROP TRIGGER messages_fts_insert; DROP TABLE messages_fts; CREATE VIRTUAL TABLE messages_fts USING fts5(body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');`,
    insert: 'contentless',
  },
]

async function appendVariant(v: Variant) {
  const path = join(tmp, `${++seq}.db`)
  const store = await openStore({ url: path })
  for (const s of data.sessions.slice(0, N / 1000)) await store.createSession({ id: s.id, source: 'bench' })
  await store.close()
  const db = openRaw(path)
  if (v.setup) db.exec(v.setup)
  let one: (i: number) => void
  if (v.insert === 'contentless') {
    const cols = MESSAGE_COLUMNS.replace(', search_text', '')
    const ins = db.prepare(
      `INSERT INTO messages (session_id, ${cols}) VALUES (?, ${cols
        .split(',')
        .map(() => '?')
        .join(', ')})`,
    )
    const fts = db.prepare('INSERT INTO messages_fts(rowid, body) VALUES (?, ?)')
    one = (i) => {
      const r = rows[i] as { sessionId: string; values: unknown[] }
      const id = ins.run(r.sessionId, ...r.values.slice(0, 8)).lastInsertRowid
      fts.run(id, (r.values[8] ?? r.values[1] ?? '') as string)
    }
  } else {
    const ins = db.prepare(
      `INSERT INTO messages (session_id, ${MESSAGE_COLUMNS}) VALUES (?, ${MESSAGE_COLUMNS.split(',')
        .map(() => '?')
        .join(', ')})`,
    )
    one = (i) => {
      const r = rows[i] as { sessionId: string; values: unknown[] }
      const values = v.insert === 'namesOnly' ? [...r.values.slice(0, 8), namesOnly[i] ?? null] : r.values
      ins.run(r.sessionId, ...values)
    }
  }
  const tx = db.transaction(one)
  const start = performance.now()
  for (let i = 0; i < rows.length; i++) tx.immediate(i)
  const ms = performance.now() - start
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  const bytes = statSync(path).size
  rmSync(path)
  rmSync(`${path}-shm`, { force: true })
  rmSync(`${path}-wal`, { force: true })
  return { ms, bytes }
}

if (only !== 'search') {
  const res: Record<string, { ms: number[]; bytes: number[] }> = {}
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const v = VARIANTS[(k + r) % VARIANTS.length] as Variant
      const { ms, bytes } = await appendVariant(v)
      const e = res[v.key] ?? { ms: [], bytes: [] }
      res[v.key] = e
      e.ms.push(ms)
      e.bytes.push(bytes)
    }
  }
  console.log(`\nA. raw appends, our schema, ${N} messages, one tx each (median of ${ROUNDS})`)
  for (const v of VARIANTS) {
    const e = res[v.key] as { ms: number[]; bytes: number[] }
    console.log(
      `  ${v.key.padEnd(42)} ${((N / median(e.ms)) * 1000).toFixed(0).padStart(6)} msgs/s  ${((median(e.ms) / N) * 1000).toFixed(1).padStart(6)} µs  ${(median(e.bytes) / N).toFixed(0).padStart(5)} B/msg`,
    )
  }
}

if (only !== 'append') {
  const path = join(tmp, 'search.db')
  const store = await openStore({ url: path })
  for (const s of data.sessions.slice(0, SEARCH_N / 1000)) {
    await store.createSession({ id: s.id, source: 'bench' })
    await store.appendMessages(s.id, s.messages)
  }
  await store.close()
  const db = openRaw(path)
  const q = queryWords(
    data.all.slice(0, SEARCH_N).map((x) => x.message),
    20250101,
  )
  const list = [...q.english, ...q.chinese]
  const SEL = `t.session_id, t.id AS item_id, t.role, t.timestamp, s.source`
  const SQL: Record<string, string> = {
    'store SQL (snippet, ORDER BY score, id)': `SELECT ${SEL}, snippet(messages_fts, 0, '«', '»', '…', 32) AS snippet, -bm25(messages_fts) AS score
      FROM messages_fts JOIN messages t ON t.id = messages_fts.rowid JOIN sessions s ON s.id = t.session_id
      WHERE messages_fts MATCH :m ORDER BY score DESC, item_id DESC LIMIT 20`,
    'store SQL without snippet': `SELECT ${SEL}, -bm25(messages_fts) AS score
      FROM messages_fts JOIN messages t ON t.id = messages_fts.rowid JOIN sessions s ON s.id = t.session_id
      WHERE messages_fts MATCH :m ORDER BY score DESC, item_id DESC LIMIT 20`,
    'store SQL, ORDER BY rank': `SELECT ${SEL}, snippet(messages_fts, 0, '«', '»', '…', 32) AS snippet, -rank AS score
      FROM messages_fts JOIN messages t ON t.id = messages_fts.rowid JOIN sessions s ON s.id = t.session_id
      WHERE messages_fts MATCH :m ORDER BY rank LIMIT 20`,
    'top-20 rowids first, then join + snippet': `WITH top AS MATERIALIZED (SELECT f.rowid AS id, f.rank AS rank FROM messages_fts f
        JOIN messages t ON t.id = f.rowid JOIN sessions s ON s.id = t.session_id
        WHERE f.messages_fts MATCH :m ORDER BY f.rank, f.rowid DESC LIMIT 20)
      SELECT ${SEL}, snippet(messages_fts, 0, '«', '»', '…', 32) AS snippet, -top.rank AS score
      FROM top JOIN messages_fts ON messages_fts.rowid = top.id AND messages_fts MATCH :m
      JOIN messages t ON t.id = top.id JOIN sessions s ON s.id = t.session_id ORDER BY top.rank, top.id DESC`,
    'top-20 ids, snippet in JS (content fetched)': `WITH top AS MATERIALIZED (SELECT f.rowid AS id, f.rank AS rank FROM messages_fts f
        JOIN messages t ON t.id = f.rowid JOIN sessions s ON s.id = t.session_id
        WHERE f.messages_fts MATCH :m ORDER BY f.rank, f.rowid DESC LIMIT 20)
      SELECT ${SEL}, coalesce(t.search_text, t.content) AS body, -top.rank AS score
      FROM top JOIN messages t ON t.id = top.id JOIN sessions s ON s.id = t.session_id ORDER BY top.rank, top.id DESC`,
    'bare MATCH ORDER BY rank LIMIT 20':
      'SELECT rowid FROM messages_fts WHERE messages_fts MATCH :m ORDER BY rank LIMIT 20',
  }
  const stmts = Object.entries(SQL).map(([k, s]) => [k, db.prepare(s)] as const)
  for (const [, st] of stmts) for (const w of list) st.all({ m: toMatchQuery(w) })
  const times: Record<string, number[][]> = {}
  for (let r = 0; r < ROUNDS; r++)
    list.forEach((w, qi) => {
      const m = toMatchQuery(w)
      stmts.forEach((_, k) => {
        const [key, st] = stmts[(k + qi + r) % stmts.length] as (typeof stmts)[number]
        const t = performance.now()
        st.all({ m })
        const per = times[key] ?? []
        times[key] = per
        const list = per[qi] ?? []
        per[qi] = list
        list.push(performance.now() - t)
      })
    })
  const count = db.prepare('SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?')
  const hits = list.map((w) => (count.get(toMatchQuery(w) as string) as { n: number }).n)
  console.log(
    `\nB. search SQL over ${SEARCH_N} messages, ${list.length} queries, raw better-sqlite3 (median / p95 ms)`,
  )
  console.log(`  matches per query: median ${median(hits)}, p95 ${p95(hits)}, max ${Math.max(...hits)}`)
  for (const [key] of stmts) {
    const per = (times[key] ?? []).map(median)
    console.log(
      `  ${key.padEnd(44)} ${median(per).toFixed(2).padStart(6)} / ${p95(per).toFixed(2).padStart(6)}`,
    )
  }
  db.close()
}
