/**
 * PostgreSQL figures of @engram/core, each a ratio to a raw `pg` floor measured in the same run on the
 * same server and rows (a throwaway PostgreSQL started like the tests' one), store and floor interleaved
 * (W1 in chunks of 50 appends, the others call by call, their order alternating), medians reported:
 *
 *   W1  appendMessage, one message per call, against a plain INSERT of the same row per round trip into the
 *       messages table of a second Engram schema (the same indexes, search vector and triggers, as the
 *       SQLite bench's floor inserts into the same schema with its FTS and counter triggers)
 *   W2  store.getMessages of a 1,000-message session against a plain SELECT of the same 7 columns
 *   W3  store.search of 50 Chinese words against the bare `search_vector @@ phraseto_tsquery` query (one
 *       untimed pass, then W3_REPS timed ones); also against that query prepared once, as the store
 *       prepares its own call (for reference)
 *   W4  bytes per message of the store's messages and sessions (with indexes) against the floor schema's
 *
 *   tsx --conditions=engram-source packages/core/bench/postgres.bench.ts [--messages N] [--rounds N]
 */
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { postgresDialect } from '../src/dialects/postgres/index.ts'
import { SEARCH_CONFIG } from '../src/dialects/postgres/search-config.ts'
import { openStore, type Store } from '../src/index.ts'
import { encodeMessage, MESSAGE_COLUMNS } from '../src/store/message-codec.ts'
import { startPostgres } from '../test/postgres-server.ts'
import { Generator, queryWords } from './data.ts'

const argv = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(name)
  return at >= 0 ? Number(argv[at + 1]) : fallback
}
const MESSAGES = option('--messages', 4000)
const ROUNDS = option('--rounds', 3)
const PER_SESSION = 1000
const W2_REPS = 30
const W3_REPS = 10
const CHUNK = 50
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const time = async (work: () => Promise<unknown>) => {
  const start = performance.now()
  await work()
  return performance.now() - start
}

const server = await startPostgres()
const clients: pg.Client[] = []
const stores: Store[] = []
const rawClient = async (schema: string) => {
  const client = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` })
  await client.connect()
  clients.push(client)
  return client
}
try {
  const data = new Generator(20250101).dataset(Math.max(1, MESSAGES / PER_SESSION), PER_SESSION, 'pg')
  const placeholders = MESSAGE_COLUMNS.split(',')
    .map((_, i) => `$${i + 2}`)
    .join(', ')
  const insert = `INSERT INTO messages (session_id, ${MESSAGE_COLUMNS}) VALUES ($1, ${placeholders}) RETURNING id`

  // W1: each round a new schema.
  const w1 = { store: [] as number[], raw: [] as number[] }
  const schemaOf = (round: number) => `w1_${round}`
  for (let round = 0; round < ROUNDS; round++) {
    const schema = schemaOf(round)
    const store = await openStore({ url: server.url, schema, poolSize: 1 })
    stores.push(store)
    for (const s of data.sessions) await store.createSession({ source: 'bench', id: s.id })
    // The floor's schema is made by the same migrations; the store only creates it and its sessions.
    const floorStore = await openStore({ url: server.url, schema: `${schema}_floor`, poolSize: 1 })
    stores.push(floorStore)
    for (const s of data.sessions) await floorStore.createSession({ source: 'bench', id: s.id })
    const raw = await rawClient(`${schema}_floor`)
    // Chunks of CHUNK rows, store and floor taking turns (the one first alternating), so that the load of
    // a shared machine falls on both alike.
    let storeMs = 0
    let rawMs = 0
    for (let from = 0; from < data.all.length; from += CHUNK) {
      const chunk = data.all.slice(from, from + CHUNK)
      const viaStore = async () =>
        (storeMs += await time(async () => {
          for (const { sessionId, message } of chunk) await store.appendMessage(sessionId, message)
        }))
      const viaRaw = async () =>
        (rawMs += await time(async () => {
          for (const { sessionId, message } of chunk)
            await raw.query(insert, [
              sessionId,
              ...encodeMessage(message, Date.now(), postgresDialect.messageIndex).values,
            ])
        }))
      for (const run of (from / CHUNK) % 2 === 0 ? [viaStore, viaRaw] : [viaRaw, viaStore]) await run()
    }
    w1.store.push(data.all.length / (storeMs / 1000))
    w1.raw.push(data.all.length / (rawMs / 1000))
  }

  // W2, W3 and W4 on the last round's rows.
  const store = stores.at(-1) as Store
  const lastSchema = schemaOf(ROUNDS - 1)
  const raw = await rawClient(lastSchema)
  await raw.query('VACUUM ANALYZE')
  const session = data.sessions[0]?.id as string
  const w2 = { store: [] as number[], raw: [] as number[] }
  const select = `SELECT id, role, content, content_parts, tool_calls, tool_call_id, name FROM messages
    WHERE session_id = $1 ORDER BY id`
  for (let rep = 0; rep < W2_REPS + 3; rep++) {
    const storeMs = await time(async () => {
      if ((await store.getMessages(session)).length !== PER_SESSION) throw new Error('W2: rows missing')
    })
    const rawMs = await time(() => raw.query(select, [session]))
    // The first three are a warm-up.
    if (rep >= 3) {
      w2.store.push(storeMs)
      w2.raw.push(rawMs)
    }
  }

  const { chinese } = queryWords(
    data.all.map((m) => m.message),
    7,
  )
  const words = chinese.slice(0, 50)
  const w3 = { store: [] as number[], raw: [] as number[], prepared: [] as number[] }
  const found = new Set<string>()
  const bareSql = `SELECT id, ts_rank_cd(search_vector, q) AS score FROM messages, phraseto_tsquery('${SEARCH_CONFIG}', $1) q
       WHERE search_vector @@ q ORDER BY score DESC LIMIT 5`
  const bareSearch = (word: string) => raw.query(bareSql, [[...word].join(' ')])
  // The same, as a statement prepared once (the store prepares its keyword call): for reference.
  const preparedSearch = (word: string) =>
    raw.query({ name: 'bare_search', text: bareSql, values: [[...word].join(' ')] })
  // A first pass untimed (both sides' code and plans warm, as in a process that has searched before), then
  // W3_REPS timed passes.
  for (let pass = 0; pass <= W3_REPS; pass++) {
    for (const [i, word] of words.entries()) {
      const viaStore = async () => {
        let hits = 0
        const ms = await time(async () => (hits = (await store.search(word, { limit: 5 })).length))
        if (pass > 0) w3.store.push(ms)
        if (hits > 0) found.add(word)
      }
      const viaRaw = async () => {
        const ms = await time(() => bareSearch(word))
        if (pass > 0) w3.raw.push(ms)
        const prepared = await time(() => preparedSearch(word))
        if (pass > 0) w3.prepared.push(prepared)
      }
      for (const run of (i + pass) % 2 === 0 ? [viaStore, viaRaw] : [viaRaw, viaStore]) await run()
    }
  }

  const bytes = async (tables: string[]) => {
    const { rows } = await raw.query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(t::regclass))::bigint AS bytes FROM unnest($1::text[]) t`,
      [tables],
    )
    return Number(rows[0]?.bytes)
  }
  const w4 = {
    store: (await bytes([`${lastSchema}.messages`, `${lastSchema}.sessions`])) / data.all.length,
    raw: (await bytes([`${lastSchema}_floor.messages`, `${lastSchema}_floor.sessions`])) / data.all.length,
    tokens: (await bytes([`${lastSchema}.write_tokens`])) / data.all.length,
  }

  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  const ms = (x: number) => `${x.toFixed(2)} ms`
  console.log(
    `PostgreSQL ${new Date().toISOString()}, ${data.all.length} messages × ${ROUNDS} rounds (medians)`,
  )
  const [w1s, w1r] = [median(w1.store), median(w1.raw)]
  console.log(
    `W1 append: ${w1s.toFixed(0)} msg/s, raw INSERT ${w1r.toFixed(0)} msg/s, ratio ${ratio(w1s, w1r)} (target ≥ 0.8)`,
  )
  const [w2s, w2r] = [median(w2.store), median(w2.raw)]
  console.log(
    `W2 restore ${PER_SESSION}: ${ms(w2s)}, raw SELECT ${ms(w2r)}, ratio ${ratio(w2s, w2r)} (target ≤ 1.3)`,
  )
  const [w3s, w3r] = [median(w3.store), median(w3.raw)]
  console.log(
    `W3 search (${found.size}/${words.length} Chinese words found): ${ms(w3s)}, bare @@ ${ms(w3r)}, ratio ${ratio(w3s, w3r)} (target ≤ 1.5); bare @@ prepared once ${ms(median(w3.prepared))}, ratio ${ratio(w3s, median(w3.prepared))}`,
  )
  console.log(
    `W4 bytes/message: ${w4.store.toFixed(0)} (messages + sessions), floor schema ${w4.raw.toFixed(0)}, ratio ${ratio(w4.store, w4.raw)}; write tokens until pruned ${w4.tokens.toFixed(0)}`,
  )
} finally {
  for (const client of clients) await client.end()
  for (const store of stores) await store.close()
  server.stop()
}
