/**
 * Storage benchmark of @engram/core (see /work/shared/ANCHORS.md for the workloads and targets).
 *
 *   pnpm bench              full run (10k appends per variant × 3 interleaved rounds, 100k search set)
 *   pnpm bench --quick      smoke run (2k appends, 1 round, 20k search set)
 *   pnpm bench --json       also writes packages/core/bench/results.json
 *   --rounds N              override the number of interleaved rounds
 *
 * Every figure is the median over interleaved rounds (variants run in rotating order each round, each on a
 * fresh file in a temp folder). Targets are printed as information; the run never fails on them.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createClient } from '@libsql/client'
import { hitQuery } from '../src/dialects/sqlite/hits.ts'
import { sqliteDialect } from '../src/dialects/sqlite/index.ts'
import { toMatchQuery } from '../src/dialects/sqlite/match.ts'
import type { StorageDriver } from '../src/driver.ts'
import { betterSqlite3Driver } from '../src/drivers/better-sqlite3.ts'
import { type MessageInput, openStore, type Store } from '../src/index.ts'
import { parseSearchQuery } from '../src/search/query.ts'
import { decodeMessage, encodeMessage, MESSAGE_COLUMNS, type MessageRow } from '../src/store/message-codec.ts'
import { type Dataset, Generator, queryWords, rng } from './data.ts'
import { bytesByObject, checkpoint, type Db, openRaw, openRawStore } from './raw.ts'

// ---------------------------------------------------------------------------------------------- options
const argv = process.argv.slice(2)
const QUICK = argv.includes('--quick')
const JSON_OUT = argv.includes('--json')
const roundsArg = argv.indexOf('--rounds')
const ROUNDS = roundsArg >= 0 ? Number(argv[roundsArg + 1]) : QUICK ? 1 : 3
const PER_SESSION = 1000
const W1_MESSAGES = QUICK ? 2000 : 10_000
const W3_MESSAGES = QUICK ? 20_000 : 100_000
const W2_REPS = QUICK ? 10 : 30
const SEED = 20250101

const TARGETS = {
  w1MsgsPerSec: 4200,
  w2Ms: 2.6,
  w3MedianMs: 2.1,
  w3P95Ms: 20,
  w3ChineseFound: 50,
  w4BytesPerMsg: 1800,
}

// ---------------------------------------------------------------------------------------------- helpers
const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}
const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number
}
const fmt = (x: number, digits = 0): string =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—'
const rotate = <T>(list: readonly T[], by: number): T[] =>
  list.map((_, i) => list[(i + by) % list.length] as T)
/** The list stored under `key`, created when missing. */
function listOf<K extends string | number>(map: Record<K, number[]>, key: K): number[] {
  const list = map[key] ?? []
  map[key] = list
  return list
}
const log = (s: string) => process.stderr.write(`${s}\n`)

const tmp = mkdtempSync(join(tmpdir(), 'engram-bench-'))
let fileSeq = 0
const newPath = (name: string) => join(tmp, `${++fileSeq}-${name}.db`)
const fileBytes = (path: string): number => {
  let total = 0
  for (const suffix of ['', '-wal']) total += statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0
  return total
}
const removeDb = (path: string) => {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true })
}
const cleanup = () => rmSync(tmp, { recursive: true, force: true })
process.on('exit', cleanup)
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    cleanup()
    process.exit(130)
  })

// The store's INSERT (store.ts keeps it private): an unknown session writes nothing.
const PLACEHOLDERS = MESSAGE_COLUMNS.split(',')
  .map(() => '?')
  .join(', ')
const INSERT_MESSAGE = `INSERT INTO messages (session_id, ${MESSAGE_COLUMNS})
  SELECT ?, ${PLACEHOLDERS} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) RETURNING id`
const INSERT_PLAIN = `INSERT INTO messages (session_id, ${MESSAGE_COLUMNS}) VALUES (?, ${PLACEHOLDERS})`

/** A file with the store's schema (migrated by openStore) and the sessions created, closed again. */
async function storeFile(name: string, sessions: readonly string[]): Promise<string> {
  const path = newPath(name)
  const store = await openStore({ url: path })
  for (const id of sessions) await store.createSession({ id, source: 'bench' })
  await store.close()
  return path
}

async function storeSizeAfterClose(store: Store, path: string): Promise<number> {
  await store.close() // runs PRAGMA wal_checkpoint(TRUNCATE)
  return fileBytes(path)
}

function rawSize(db: Db, path: string): number {
  checkpoint(db)
  return fileBytes(path)
}

// ---------------------------------------------------------------------------------------------- data
log(`engram storage bench${QUICK ? ' (quick)' : ''}: ${ROUNDS} round(s), temp folder ${tmp}`)
let t0 = performance.now()
const data: Dataset = new Generator(SEED).dataset(W3_MESSAGES / PER_SESSION, PER_SESSION, 'sess')
const w1Sessions = data.sessions.slice(0, W1_MESSAGES / PER_SESSION)
const w1 = data.all.slice(0, W1_MESSAGES)
const w1SessionIds = w1Sessions.map((s) => s.id)
const queries = queryWords(
  data.all.map((x) => x.message),
  SEED,
)
// 150 English and 50 Chinese, interleaved 3:1 so both kinds meet the same machine state.
const queryList: { q: string; zh: boolean }[] = []
for (let i = 0, e = 0, z = 0; i < 200; i++) {
  if (i % 4 === 3 && z < queries.chinese.length)
    queryList.push({ q: queries.chinese[z++] as string, zh: true })
  else queryList.push({ q: queries.english[e++] as string, zh: false })
}
const textBytes = data.all.reduce(
  (n, { message: m }) =>
    n +
    Buffer.byteLength(typeof m.content === 'string' ? m.content : '') +
    (m.tool_calls ? Buffer.byteLength(JSON.stringify(m.tool_calls)) : 0),
  0,
)
const chineseShare =
  data.all.filter(({ message: m }) => /[\u4e00-\u9fff]/.test(String(m.content))).length / data.all.length
log(
  `data: ${data.all.length} messages in ${data.sessions.length} sessions, ${fmt(textBytes / data.all.length)} B of text+tool JSON per message, ${fmt(chineseShare * 100, 1)}% with Chinese (${fmt(performance.now() - t0)} ms)`,
)

// ---------------------------------------------------------------------------------------------- W1
type W1Variant = {
  key: string
  label: string
  run: () => Promise<{ ms: number; bytes: number; path: string }>
}

const encodedW1 = () => {
  const now = Date.now()
  return w1.map(({ sessionId, message }) => {
    const { values } = encodeMessage(message, now, sqliteDialect.messageIndex)
    return { sessionId, values }
  })
}

let keepForW2: string | null = null

async function oursW1(driver: 'better-sqlite3' | 'libsql', name: string) {
  const path = await storeFile(name, w1SessionIds)
  const store = await openStore({ url: path, driver })
  const start = performance.now()
  for (const { sessionId, message } of w1) await store.appendMessage(sessionId, message)
  const ms = performance.now() - start
  return { ms, bytes: await storeSizeAfterClose(store, path), path }
}

async function rawOursSchema(name: string, mode: 'plain' | 'exists' | 'noTrigger') {
  const path = await storeFile(name, w1SessionIds)
  const db = openRaw(path)
  if (mode === 'noTrigger') db.exec('DROP TRIGGER messages_fts_insert')
  // the rows alone: the trigger lists each for the store's batch indexing (sqlite/unindexed.ts), which
  // these do not run; without the trigger not even that
  const rows = encodedW1()
  let tx: (r: (typeof rows)[number]) => void
  if (mode === 'exists') {
    const stmt = db.prepare(INSERT_MESSAGE)
    tx = db.transaction((r) => {
      stmt.all(r.sessionId, ...r.values, r.sessionId)
    })
  } else {
    const stmt = db.prepare(INSERT_PLAIN)
    tx = db.transaction((r) => {
      stmt.run(r.sessionId, ...r.values)
    })
  }
  const start = performance.now()
  for (const r of rows) (tx as unknown as { immediate: typeof tx }).immediate(r)
  const ms = performance.now() - start
  const bytes = rawSize(db, path)
  db.close()
  return { ms, bytes, path }
}

async function driverBatchW1(name: string) {
  const path = await storeFile(name, w1SessionIds)
  const driver: StorageDriver = betterSqlite3Driver({ path })
  await driver.execute({ sql: 'PRAGMA journal_mode = WAL' })
  await driver.execute({ sql: 'PRAGMA synchronous = NORMAL' })
  const rows = encodedW1()
  const start = performance.now()
  for (const r of rows)
    await driver.batch([
      { sql: INSERT_MESSAGE, params: [r.sessionId, ...(r.values as never[]), r.sessionId] },
    ])
  const ms = performance.now() - start
  await driver.execute({ sql: 'PRAGMA wal_checkpoint(TRUNCATE)' })
  await driver.close()
  return { ms, bytes: fileBytes(path), path }
}

async function libsqlBatchW1(name: string) {
  const path = await storeFile(name, w1SessionIds)
  const client = createClient({ url: `file:${path}` })
  await client.execute('PRAGMA journal_mode = WAL')
  await client.execute('PRAGMA synchronous = NORMAL')
  const rows = encodedW1()
  const start = performance.now()
  for (const r of rows)
    await client.batch(
      [{ sql: INSERT_MESSAGE, args: [r.sessionId, ...(r.values as never[]), r.sessionId] }],
      'write',
    )
  const ms = performance.now() - start
  await client.execute('PRAGMA wal_checkpoint(TRUNCATE)')
  client.close()
  return { ms, bytes: fileBytes(path), path }
}

async function rawLayoutW1(name: string, layout: 'noIndex' | 'hermes') {
  const path = newPath(name)
  const raw = openRawStore(path, layout)
  for (const id of w1SessionIds) raw.createSession(id)
  const start = performance.now()
  for (const { sessionId, message } of w1) raw.append(sessionId, message)
  const ms = performance.now() - start
  const bytes = rawSize(raw.db, path)
  raw.close()
  return { ms, bytes, path }
}

async function encodeOnlyW1() {
  const now = Date.now()
  const start = performance.now()
  let sink = 0
  for (const { message } of w1) sink += encodeMessage(message, now, sqliteDialect.messageIndex).values.length
  const ms = performance.now() - start
  if (sink < 0) throw new Error('unreachable')
  return { ms, bytes: Number.NaN, path: '' }
}

const W1_VARIANTS: W1Variant[] = [
  {
    key: 'ours-bsql',
    label: 'ours: store.appendMessage, better-sqlite3',
    run: () => oursW1('better-sqlite3', 'ours-bsql'),
  },
  {
    key: 'ours-libsql',
    label: 'ours: store.appendMessage, libsql',
    run: () => oursW1('libsql', 'ours-libsql'),
  },
  {
    key: 'floor-noindex',
    label: 'floor: raw better-sqlite3, no full-text index',
    run: () => rawLayoutW1('noindex', 'noIndex'),
  },
  {
    key: 'hermes',
    label: 'reference: raw better-sqlite3, Hermes-like schema',
    run: () => rawLayoutW1('hermes', 'hermes'),
  },
  {
    key: 'raw-ours-plain',
    label: 'breakdown: raw, our schema, INSERT … VALUES (rows listed, not indexed)',
    run: () => rawOursSchema('plain', 'plain'),
  },
  {
    key: 'raw-ours-exists',
    label: 'breakdown: raw, our schema, our INSERT…SELECT WHERE EXISTS RETURNING',
    run: () => rawOursSchema('exists', 'exists'),
  },
  {
    key: 'raw-ours-notrigger',
    label: 'breakdown: raw, our schema without the listing trigger',
    run: () => rawOursSchema('notrig', 'noTrigger'),
  },
  {
    key: 'driver-batch-bsql',
    label: 'breakdown: better-sqlite3 driver.batch (async), pre-encoded',
    run: () => driverBatchW1('drv'),
  },
  {
    key: 'libsql-batch',
    label: 'breakdown: @libsql/client batch(write), pre-encoded',
    run: () => libsqlBatchW1('libsqlraw'),
  },
  { key: 'encode-only', label: 'breakdown: encodeMessage alone (JS work)', run: encodeOnlyW1 },
]

const w1Ms: Record<string, number[]> = {}
const w1Bytes: Record<string, number[]> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const v of rotate(W1_VARIANTS, round)) {
    const r = await v.run()
    listOf(w1Ms, v.key).push(r.ms)
    listOf(w1Bytes, v.key).push(r.bytes)
    if (v.key === 'ours-bsql' && round === ROUNDS - 1) keepForW2 = r.path
    else if (r.path) removeDb(r.path)
    log(`W1 round ${round + 1} ${v.key.padEnd(20)} ${fmt((W1_MESSAGES / r.ms) * 1000)} msgs/s`)
  }
}
const w1Rate = (key: string) => (W1_MESSAGES / median(w1Ms[key] ?? [])) * 1000
const w1UsPerMsg = (key: string) => (median(w1Ms[key] ?? []) / W1_MESSAGES) * 1000

// ---------------------------------------------------------------------------------------------- W2
if (!keepForW2) throw new Error('W1 kept no file for W2')
const w2Path = keepForW2
const w2Session = w1SessionIds[Math.floor(w1SessionIds.length / 2)] as string
const w2Bsql = await openStore({ url: w2Path })
const w2Libsql = await openStore({ url: w2Path, driver: 'libsql' })
const w2Raw = openRaw(w2Path)
const SEVEN =
  'SELECT id, role, content, content_parts, tool_calls, tool_call_id, name FROM messages WHERE session_id = ? ORDER BY id'
const sevenStmt = w2Raw.prepare(SEVEN)
const sevenArrays = w2Raw.prepare(SEVEN).raw(true)
const allStmt = w2Raw.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id')
const W2_VARIANTS: { key: string; label: string; run: () => Promise<number> | number }[] = [
  {
    key: 'ours-bsql',
    label: 'ours: store.getMessages, better-sqlite3',
    run: async () => (await w2Bsql.getMessages(w2Session)).length,
  },
  {
    key: 'ours-libsql',
    label: 'ours: store.getMessages, libsql',
    run: async () => (await w2Libsql.getMessages(w2Session)).length,
  },
  {
    key: 'floor-7col',
    label: 'floor: raw SELECT of the 7 columns as objects',
    run: () => sevenStmt.all(w2Session).length,
  },
  {
    key: 'raw-7col-decode',
    label: 'breakdown: raw 7 columns + decodeMessage (JSON.parse of tool_calls)',
    run: () => (sevenStmt.all(w2Session) as MessageRow[]).map(decodeMessage).length,
  },
  {
    key: 'raw-7col-arrays',
    label: 'breakdown: raw 7 columns as arrays',
    run: () => sevenArrays.all(w2Session).length,
  },
  {
    key: 'raw-all-cols',
    label: 'breakdown: raw SELECT * as objects',
    run: () => allStmt.all(w2Session).length,
  },
]
const w2Ms: Record<string, number[]> = {}
for (const v of W2_VARIANTS) for (let i = 0; i < 3; i++) await v.run() // warm-up
for (let rep = 0; rep < W2_REPS; rep++) {
  for (const v of rotate(W2_VARIANTS, rep)) {
    const start = performance.now()
    const n = await v.run()
    listOf(w2Ms, v.key).push(performance.now() - start)
    if (n !== PER_SESSION) throw new Error(`W2 ${v.key} returned ${n} messages`)
  }
}
await w2Bsql.close()
await w2Libsql.close()
w2Raw.close()
removeDb(w2Path)
log('W2 done')

// ---------------------------------------------------------------------------------------------- W3/W4 setup
const batches: { sessionId: string; messages: MessageInput[] }[] = data.sessions.map((s) => ({
  sessionId: s.id,
  messages: s.messages,
}))
t0 = performance.now()
const w3Path = await storeFile(
  'w3-ours',
  data.sessions.map((s) => s.id),
)
const w3Store = await openStore({ url: w3Path })
for (const b of batches) await w3Store.appendMessages(b.sessionId, b.messages)
const buildOursMs = performance.now() - t0
const w3Bytes = await storeSizeAfterClose(w3Store, w3Path)
log(`W3 setup ours: ${fmt(buildOursMs)} ms`)

const buildRaw = (layout: 'noIndex' | 'hermes') => {
  const start = performance.now()
  const path = newPath(`w3-${layout}`)
  const raw = openRawStore(path, layout)
  for (const s of data.sessions) raw.createSession(s.id)
  for (const b of batches) raw.appendMany(b.messages.map((message) => ({ sessionId: b.sessionId, message })))
  const bytes = rawSize(raw.db, path)
  const ms = performance.now() - start
  log(`W3 setup ${layout}: ${fmt(ms)} ms`)
  return { raw, path, bytes, ms }
}
const w3NoIndex = buildRaw('noIndex')
const noIndexObjects = bytesByObject(w3NoIndex.raw.db)
w3NoIndex.raw.close()
removeDb(w3NoIndex.path)
const w3Hermes = buildRaw('hermes')

// ---------------------------------------------------------------------------------------------- W3
// Every variant gets its own connection (own page cache), so no variant runs on pages another one warmed.
const oursStore = await openStore({ url: w3Path })
const oursStoreDefault = await openStore({ url: w3Path })
const oursRaw = openRaw(w3Path)
const oursRaw2 = openRaw(w3Path)
const oursRaw3 = openRaw(w3Path)
const oursObjects = bytesByObject(oursRaw)
const hermesObjects = bytesByObject(w3Hermes.raw.db)
const rankSql = 'SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20'
const ftsRank = oursRaw2.prepare(rankSql)
const ftsRankPlain = oursRaw3.prepare(rankSql)
// The store's message query (search.ts) run directly: isolates driver + JS work from the SQL itself.
const oursSql = (query: string) => {
  const { sql, params = [] } = hitQuery('message', { terms: parseSearchQuery(query), operator: 'OR' }, {}, 20)
  return oursRaw.prepare(sql).all(...params)
}
const contentById = oursRaw.prepare('SELECT content, tool_calls FROM messages WHERE id = ?')
const hermesFts = w3Hermes.raw.db.prepare(
  'SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20',
)
const hermesTri = w3Hermes.raw.db.prepare(
  'SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ? ORDER BY rank LIMIT 20',
)
// Hermes's own search query (hermes_state.py search_messages) on its schema: the hits with their rows,
// sessions and FTS5 snippets, trigram for Chinese (a 2-character word finds nothing there without its
// LIKE scan, so it costs nothing). The floor the ratio of plain keyword search is taken against.
const hermesQuery = (fts: string) =>
  w3Hermes.raw.db.prepare(`SELECT m.id, m.session_id, m.role, snippet(${fts}, 0, '>>>', '<<<', '...', 40) AS snippet,
    m.content, m.timestamp, m.tool_name, s.source, s.started_at FROM ${fts} JOIN messages m ON m.id = ${fts}.rowid
    JOIN sessions s ON s.id = m.session_id WHERE ${fts} MATCH ? ORDER BY rank LIMIT 20`)
const hermesQueryFts = hermesQuery('messages_fts')
const hermesQueryTri = hermesQuery('messages_fts_trigram')
const plainTerm = (q: string, zh: boolean) => (zh ? `"${[...q].join(' ')}"` : `"${q}"`)

type W3Variant = { key: string; label: string; run: (q: string, zh: boolean) => Promise<number> | number }
const W3_VARIANTS: W3Variant[] = [
  {
    key: 'ours-noep',
    label: 'ours: store.search, includeEpisodes: false',
    run: async (q) => (await oursStore.search(q, { limit: 20, includeEpisodes: false })).length,
  },
  {
    key: 'ours-default',
    label: 'ours: store.search, default (episodes too)',
    run: async (q) => (await oursStoreDefault.search(q, { limit: 20 })).length,
  },
  {
    key: 'raw-our-sql',
    label: 'breakdown: raw, the store\u2019s SQL (joins + snippet) with toMatchQuery(q)',
    run: (q) => oursSql(q).length,
  },
  {
    key: 'raw-same-match',
    label: 'breakdown: raw FTS5 MATCH toMatchQuery(q), ORDER BY rank LIMIT 20',
    run: (q) => ftsRank.all(toMatchQuery(q)).length,
  },
  {
    key: 'floor-plain',
    label: 'floor: raw FTS5 MATCH plain term on our index, ORDER BY rank LIMIT 20',
    run: (q, zh) => ftsRankPlain.all(plainTerm(q, zh)).length,
  },
  {
    key: 'hermes-query',
    label: 'floor: raw better-sqlite3, Hermes schema, Hermes query (joins, snippet(), content)',
    run: (q, zh) =>
      zh ? (q.length >= 3 ? hermesQueryTri.all(`"${q}"`).length : 0) : hermesQueryFts.all(`"${q}"`).length,
  },
  {
    key: 'hermes',
    label: 'reference: raw Hermes-like (unicode61 for English, trigram for Chinese, no LIKE)',
    run: (q, zh) =>
      zh ? (q.length >= 3 ? hermesTri.all(`"${q}"`).length : 0) : hermesFts.all(`"${q}"`).length,
  },
]
for (const v of W3_VARIANTS) for (const { q, zh } of queryList) await v.run(q, zh) // warm-up
const w3Times: Record<string, number[][]> = {} // variant → query → times
const w3Found: Record<string, { zh: number; en: number }> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (let qi = 0; qi < queryList.length; qi++) {
    const { q, zh } = queryList[qi] as { q: string; zh: boolean }
    for (const v of rotate(W3_VARIANTS, qi + round)) {
      const start = performance.now()
      const n = await v.run(q, zh)
      const ms = performance.now() - start
      const perQuery = w3Times[v.key] ?? []
      w3Times[v.key] = perQuery
      listOf(perQuery, qi).push(ms)
      if (round === 0 && n > 0) {
        const f = w3Found[v.key] ?? { zh: 0, en: 0 }
        w3Found[v.key] = f
        if (zh) f.zh++
        else f.en++
      }
    }
  }
}
// Do the Chinese hits really contain the word? (top hit of store.search)
let zhVerified = 0
for (const { q, zh } of queryList) {
  if (!zh) continue
  const [hit] = await oursStore.search(q, { limit: 20, includeEpisodes: false })
  const row =
    hit?.kind !== 'message'
      ? undefined
      : (contentById.get(hit.messageId) as { content: string | null } | undefined)
  if (row?.content?.includes(q)) zhVerified++
}
// Natural-language questions: 3–5 of the query words wrapped in stop-words, as a model writes them.
const questionRng = rng(SEED + 1)
const questions = Array.from({ length: 50 }, () => {
  const n = 3 + Math.floor(questionRng() * 3)
  const words = Array.from(
    { length: n },
    () => queries.english[Math.floor(questionRng() * queries.english.length)] as string,
  )
  return `what did we say about the ${words.join(' and the ')}?`
})
const plainOr = (q: string) => {
  const { sql, params = [] } = hitQuery('message', { terms: parseSearchQuery(q), operator: 'OR' }, {}, 20)
  return oursRaw.prepare(sql).all(...params).length
}
// The same words as keywords: what the search ran for these questions before conversation-aware ranking.
const keywordsOf = (q: string) =>
  parseSearchQuery(q)
    .map((term) => term.text)
    .join(' ')
const questionTimes: Record<'tiers' | 'keywords' | 'plainOr', number[]> = {
  tiers: [],
  keywords: [],
  plainOr: [],
}
const timeSearch = async (key: 'tiers' | 'keywords', q: string) => {
  const t = performance.now()
  await oursStore.search(q, { limit: 20, includeEpisodes: false })
  questionTimes[key].push(performance.now() - t)
}
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, q] of questions.entries()) {
    // alternate which runs first, so neither always finds the other's pages in the cache
    if ((i + round) % 2 === 0) {
      await timeSearch('tiers', q)
      await timeSearch('keywords', keywordsOf(q))
    } else {
      await timeSearch('keywords', keywordsOf(q))
      await timeSearch('tiers', q)
    }
    const t = performance.now()
    plainOr(q)
    questionTimes.plainOr.push(performance.now() - t)
  }
}
const jsQueryStart = performance.now()
for (let i = 0; i < 10; i++) for (const { q } of queryList) toMatchQuery(q)
const toMatchUs = ((performance.now() - jsQueryStart) / (10 * queryList.length)) * 1000
const w3Stat = (key: string, zhOnly?: boolean) => {
  const perQuery = (w3Times[key] ?? [])
    .map((ts, qi) => ({ t: median(ts), zh: queryList[qi]?.zh }))
    .filter((x) => zhOnly === undefined || x.zh === zhOnly)
    .map((x) => x.t)
  return { median: median(perQuery), p95: percentile(perQuery, 95), max: Math.max(...perQuery) }
}
await oursStore.close()
await oursStoreDefault.close()
oursRaw.close()
oursRaw2.close()
oursRaw3.close()
w3Hermes.raw.close()
log('W3 done')

// ---------------------------------------------------------------------------------------------- report
const perMsg = (bytes: number, n: number) => bytes / n
const w4 = {
  after10k: {
    ours: perMsg(median(w1Bytes['ours-bsql'] ?? []), W1_MESSAGES),
    oursLibsql: perMsg(median(w1Bytes['ours-libsql'] ?? []), W1_MESSAGES),
    noIndex: perMsg(median(w1Bytes['floor-noindex'] ?? []), W1_MESSAGES),
    hermes: perMsg(median(w1Bytes.hermes ?? []), W1_MESSAGES),
  },
  after100k: {
    ours: perMsg(w3Bytes, W3_MESSAGES),
    noIndex: perMsg(w3NoIndex.bytes, W3_MESSAGES),
    hermes: perMsg(w3Hermes.bytes, W3_MESSAGES),
  },
}
removeDb(w3Hermes.path)
removeDb(w3Path)

const rows: string[][] = []
const row = (...cells: string[]) => rows.push(cells)
const section = (title: string) => rows.push([`— ${title}`])
const rate = (key: string) => fmt(w1Rate(key))

section(`W1 append ${fmt(W1_MESSAGES)} messages, one transaction each (msgs/s; µs/msg)`)
for (const v of W1_VARIANTS) {
  const target = v.key.startsWith('ours') ? `≥ ${fmt(TARGETS.w1MsgsPerSec)}` : ''
  const value =
    v.key === 'encode-only'
      ? `${fmt(w1UsPerMsg(v.key), 1)} µs/msg`
      : `${rate(v.key)} (${fmt(w1UsPerMsg(v.key), 1)} µs)`
  row(v.label, value, target)
}
row('ratio ours(bsql) / no-index floor', fmt(w1Rate('ours-bsql') / w1Rate('floor-noindex'), 2))
row(
  'ratio ours(bsql) / Hermes-like',
  fmt(w1Rate('ours-bsql') / w1Rate('hermes'), 2),
  '≥ 4 (vs Hermes itself)',
)
row('ratio ours(libsql) / no-index floor', fmt(w1Rate('ours-libsql') / w1Rate('floor-noindex'), 2))
row('ratio ours(libsql) / Hermes-like', fmt(w1Rate('ours-libsql') / w1Rate('hermes'), 2))

section(`W2 restore a ${PER_SESSION}-message session (median of ${W2_REPS} reps, ms)`)
for (const v of W2_VARIANTS)
  row(v.label, fmt(median(w2Ms[v.key] ?? []), 2), v.key.startsWith('ours') ? `≈ ${TARGETS.w2Ms}` : '')
row(
  'ratio ours(bsql) / 7-column floor',
  fmt(median(w2Ms['ours-bsql'] ?? []) / median(w2Ms['floor-7col'] ?? []), 2),
)
row(
  'ratio ours(libsql) / 7-column floor',
  fmt(median(w2Ms['ours-libsql'] ?? []) / median(w2Ms['floor-7col'] ?? []), 2),
)

section(`W3 ${queryList.length} queries over ${fmt(W3_MESSAGES)} messages, LIMIT 20 (median / p95 ms; found)`)
for (const v of W3_VARIANTS) {
  const s = w3Stat(v.key)
  const f = w3Found[v.key] ?? { zh: 0, en: 0 }
  const target = v.key.startsWith('ours')
    ? `≤ ${TARGETS.w3MedianMs} / ≤ ${TARGETS.w3P95Ms}; ${TARGETS.w3ChineseFound}/50`
    : ''
  row(
    v.label,
    `${fmt(s.median, 2)} / ${fmt(s.p95, 2)}  zh ${f.zh}/${queries.chinese.length}, en ${f.en}/${queries.english.length}`,
    target,
  )
}
{
  const en = w3Stat('ours-noep', false)
  const zh = w3Stat('ours-noep', true)
  row('ours (no episodes), English only', `${fmt(en.median, 2)} / ${fmt(en.p95, 2)} (max ${fmt(en.max, 1)})`)
  row('ours (no episodes), Chinese only', `${fmt(zh.median, 2)} / ${fmt(zh.p95, 2)} (max ${fmt(zh.max, 1)})`)
  row('Chinese queries whose top hit contains the word', `${zhVerified}/${queries.chinese.length}`)
  const floor = w3Stat('hermes-query')
  for (const key of ['ours-default', 'ours-noep'] as const) {
    const ours = w3Stat(key)
    row(
      `ratio ${key === 'ours-default' ? 'ours (default)' : 'ours (no episodes)'} / Hermes-query floor, median (p95)`,
      `${fmt(ours.median / floor.median, 2)} (${fmt(ours.p95 / floor.p95, 2)})`,
      key === 'ours-default' ? '≤ 1.3' : '',
    )
  }
  row('toMatchQuery per query (JS)', `${fmt(toMatchUs, 1)} µs`)
  row(
    'setup: 100 × appendMessages(1,000) (info)',
    `${fmt(buildOursMs)} ms (${fmt((W3_MESSAGES / buildOursMs) * 1000)} msgs/s)`,
  )
  row('setup: Hermes-like bulk, 1,000 per tx (info)', `${fmt(w3Hermes.ms)} ms`)
}

section(
  `W3 natural-language questions (${questions.length} × ${ROUNDS}, 3–5 words in stop-words), LIMIT 20 (median / p95 ms)`,
)
row(
  'ours: store.search, conversation-aware (tiers, then windows, speakers, time)',
  `${fmt(median(questionTimes.tiers), 2)} / ${fmt(percentile(questionTimes.tiers, 95), 2)}`,
  '≤ 1.5 × keywords / ≤ 20',
)
row(
  'floor: the same words as keywords (tiers only, as before)',
  `${fmt(median(questionTimes.keywords), 2)} / ${fmt(percentile(questionTimes.keywords, 95), 2)}`,
)
row(
  'ratio questions / keywords (median)',
  fmt(median(questionTimes.tiers) / median(questionTimes.keywords), 2),
  '≤ 1.5',
)
row(
  'plain OR of every term, ranked (raw SQL)',
  `${fmt(median(questionTimes.plainOr), 2)} / ${fmt(percentile(questionTimes.plainOr, 95), 2)}`,
)

section('W4 bytes on disk per message (after wal_checkpoint(TRUNCATE))')
row(
  `ours (better-sqlite3) after ${fmt(W1_MESSAGES)}`,
  fmt(w4.after10k.ours),
  `≤ ${fmt(TARGETS.w4BytesPerMsg)}`,
)
row(`ours (libsql) after ${fmt(W1_MESSAGES)}`, fmt(w4.after10k.oursLibsql), `≤ ${fmt(TARGETS.w4BytesPerMsg)}`)
row(`no-index floor after ${fmt(W1_MESSAGES)}`, fmt(w4.after10k.noIndex))
row(`Hermes-like after ${fmt(W1_MESSAGES)}`, fmt(w4.after10k.hermes))
row(`ours after ${fmt(W3_MESSAGES)}`, fmt(w4.after100k.ours), `≤ ${fmt(TARGETS.w4BytesPerMsg)}`)
row(`no-index floor after ${fmt(W3_MESSAGES)}`, fmt(w4.after100k.noIndex))
row(`Hermes-like after ${fmt(W3_MESSAGES)}`, fmt(w4.after100k.hermes))
const width = [Math.max(...rows.filter((r) => r.length > 1).map((r) => (r[0] as string).length)), 0]
width[1] = Math.max(...rows.filter((r) => r.length > 1).map((r) => (r[1] as string).length))
const lines = rows.map((r) =>
  r.length === 1
    ? `\n${r[0]}`
    : `  ${(r[0] as string).padEnd(width[0] as number)}  ${(r[1] as string).padStart(width[1] as number)}${r[2] ? `   target ${r[2]}` : ''}`,
)
const objectsLine = (title: string, objs: { name: string; bytes: number }[]) =>
  `  ${title}: ${objs
    .filter((o) => o.bytes / W3_MESSAGES >= 5)
    .map((o) => `${o.name} ${fmt(o.bytes / W3_MESSAGES)}`)
    .join(', ')}`
lines.push(
  `\nW4 bytes per message by table/index at ${fmt(W3_MESSAGES)} messages (dbstat)`,
  objectsLine('ours', oursObjects),
  objectsLine('Hermes-like', hermesObjects),
  objectsLine('no-index floor', noIndexObjects),
)
console.log(
  `\nengram storage benchmark — Node ${process.version}, ${ROUNDS} interleaved round(s)${QUICK ? ', QUICK' : ''}; medians${lines.join('\n')}\n`,
)

if (JSON_OUT) {
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    quick: QUICK,
    rounds: ROUNDS,
    sizes: { w1Messages: W1_MESSAGES, w3Messages: W3_MESSAGES, w2Reps: W2_REPS, perSession: PER_SESSION },
    data: { bytesPerMessage: textBytes / data.all.length, chineseShare },
    targets: TARGETS,
    w1: Object.fromEntries(
      W1_VARIANTS.map((v) => [
        v.key,
        { label: v.label, msgsPerSec: w1Rate(v.key), usPerMsg: w1UsPerMsg(v.key), roundsMs: w1Ms[v.key] },
      ]),
    ),
    w2: Object.fromEntries(
      W2_VARIANTS.map((v) => [v.key, { label: v.label, medianMs: median(w2Ms[v.key] ?? []) }]),
    ),
    w3: {
      queries: { english: queries.english, chinese: queries.chinese },
      variants: Object.fromEntries(
        W3_VARIANTS.map((v) => [v.key, { label: v.label, ...w3Stat(v.key), found: w3Found[v.key] }]),
      ),
      oursEnglish: w3Stat('ours-noep', false),
      oursChinese: w3Stat('ours-noep', true),
      vsHermesQueryFloor: {
        median: w3Stat('ours-default').median / w3Stat('hermes-query').median,
        p95: w3Stat('ours-default').p95 / w3Stat('hermes-query').p95,
      },
      chineseTopHitVerified: zhVerified,
      toMatchQueryUs: toMatchUs,
      setupMs: { ours: buildOursMs, hermes: w3Hermes.ms },
    },
    w4: { ...w4, objects: { ours: oursObjects, hermes: hermesObjects, noIndex: noIndexObjects } },
  }
  const file = join(dirname(fileURLToPath(import.meta.url)), 'results.json')
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`)
  log(`wrote ${file}`)
}
