/**
 * PostgreSQL figures of @engram/core, each a ratio to a raw `pg` floor measured in the same run on the
 * same server and rows (a throwaway PostgreSQL started like the tests' one):
 *
 *   W1  appendMessage, one message per call, against a plain INSERT of the same row per round trip
 *   W3  store.search of 50 Chinese words against the bare `search_vector @@ phraseto_tsquery` query
 *
 *   tsx --conditions=engram-source packages/core/bench/postgres.bench.ts [--messages N] [--rounds N]
 */
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { openStore } from '../src/index.ts'
import { encodeMessage, MESSAGE_COLUMNS } from '../src/store/message-codec.ts'
import { startPostgres } from '../test/postgres-server.ts'
import { Generator, queryWords } from './data.ts'

const argv = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(name)
  return at >= 0 ? Number(argv[at + 1]) : fallback
}
const MESSAGES = option('--messages', 2000)
const ROUNDS = option('--rounds', 3)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

const server = await startPostgres()
try {
  const data = new Generator(20250101).dataset(MESSAGES / 500, 500, 'pg')
  const w1 = { store: [] as number[], raw: [] as number[] }
  for (let round = 0; round < ROUNDS; round++) {
    const schema = `w1_${round}`
    const store = await openStore({ url: server.url, schema, poolSize: 1 })
    for (const s of data.sessions) await store.createSession({ source: 'bench', id: s.id })
    let start = performance.now()
    for (const { sessionId, message } of data.all) await store.appendMessage(sessionId, message)
    w1.store.push(data.all.length / ((performance.now() - start) / 1000))
    await store.close()

    // The floor: the same rows as single INSERTs (autocommit, one round trip each) into a copy of the table.
    const raw = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` })
    await raw.connect()
    await raw.query('CREATE TABLE raw_messages (LIKE messages INCLUDING ALL)')
    const placeholders = MESSAGE_COLUMNS.split(',')
      .map((_, i) => `$${i + 2}`)
      .join(', ')
    const insert = `INSERT INTO raw_messages (session_id, ${MESSAGE_COLUMNS}) VALUES ($1, ${placeholders}) RETURNING id`
    start = performance.now()
    for (const { sessionId, message } of data.all)
      await raw.query(insert, [sessionId, ...encodeMessage(message, Date.now()).values])
    w1.raw.push(data.all.length / ((performance.now() - start) / 1000))
    await raw.end()
  }

  // W3 on the last round's rows.
  const schema = `w1_${ROUNDS - 1}`
  const store = await openStore({ url: server.url, schema, poolSize: 1 })
  const raw = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` })
  await raw.connect()
  const { chinese } = queryWords(
    data.all.map((m) => m.message),
    7,
  )
  const words = chinese.slice(0, 50)
  const storeMs: number[] = []
  const bareMs: number[] = []
  let found = 0
  for (const word of words) {
    let start = performance.now()
    const hits = await store.search(word, { limit: 5 })
    storeMs.push(performance.now() - start)
    if (hits.length > 0) found++
    const spaced = [...word].join(' ')
    start = performance.now()
    await raw.query(
      `SELECT id, ts_rank_cd(search_vector, q) AS score FROM messages, phraseto_tsquery('simple', $1) q
       WHERE search_vector @@ q ORDER BY score DESC LIMIT 5`,
      [spaced],
    )
    bareMs.push(performance.now() - start)
  }
  await raw.end()
  await store.close()

  const w1Store = median(w1.store)
  const w1Raw = median(w1.raw)
  console.log(`PostgreSQL ${new Date().toISOString()}, ${data.all.length} messages × ${ROUNDS} rounds`)
  console.log(
    `W1 append: ${w1Store.toFixed(0)} msg/s, raw INSERT ${w1Raw.toFixed(0)} msg/s, ratio ${(w1Store / w1Raw).toFixed(2)}`,
  )
  console.log(
    `W3 search (${found}/${words.length} Chinese words found): median ${median(storeMs).toFixed(2)} ms, bare @@ ${median(bareMs).toFixed(2)} ms, ratio ${(median(storeMs) / median(bareMs)).toFixed(2)}`,
  )
} finally {
  server.stop()
}
