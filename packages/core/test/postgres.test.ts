import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pgHitQuery, pgKeywordHits } from '../src/dialects/postgres/search.ts'
import { pgDriver } from '../src/drivers/pg.ts'
import { numberPlaceholders } from '../src/drivers/pg-placeholders.ts'
import { openStore } from '../src/index.ts'
import { parseSearchQuery } from '../src/search/query.ts'
import { POSTGRES_CAPABILITIES, storeContract } from '../src/testing/index.ts'
import { schemaOf } from './postgres-helpers.ts'
import { type PostgresServer, startPostgres } from './postgres-server.ts'

const deploy = { terms: parseSearchQuery('deploy'), operator: 'OR' } as const

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
})
afterAll(() => server?.stop())

storeContract(
  'pg',
  (path, { readOnly }) =>
    pgDriver({ url: server.url, schema: schemaOf(path), readonly: readOnly, poolSize: 4 }),
  POSTGRES_CAPABILITIES,
)

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Index Cond'?: string
  'Actual Rows': number
  Plans?: PlanNode[]
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]

describe('a user-scoped search on PostgreSQL', () => {
  it("reads only that user's rows from the search index, and the rows follow their session's user", async () => {
    const schema = 'scoped_search'
    const store = await openStore({ url: server.url, schema })
    const client = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` })
    await client.connect()
    try {
      // each user: 20 sessions of 10 everyday messages; `counts` of them mention a deploy
      const counts = { ann: 3, bob: 40, cat: 25 }
      for (const [userId, n] of Object.entries(counts)) {
        for (let s = 0; s < 20; s++) {
          const session = await store.createSession({ source: 'cli', userId })
          const deploys = Math.floor(n / 20) + (s < n % 20 ? 1 : 0)
          await store.appendMessages(session.id, [
            ...Array.from({ length: deploys }, (_, i) => ({
              role: 'user' as const,
              content: `deploying the canary ${i}`,
            })),
            ...Array.from({ length: 10 }, (_, i) => ({
              role: 'user' as const,
              content: `routine note ${s}.${i}`,
            })),
          ])
        }
      }
      await client.query('ANALYZE')
      expect((await store.search('deploy', { userId: 'ann', limit: 50 })).length).toBe(3)

      // the plan of the messages half of that search: the index condition holds the user, so the index
      // hands over ann's 3 matches, not all 68 (nor all 203 of her messages); the planner is kept off a
      // sequential scan, which a table of a few pages would get
      await client.query('SET enable_seqscan = off')
      const { sql, params } = pgHitQuery('message', deploy, { userId: 'ann' }, 10)
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${numberPlaceholders(sql)}`,
        [...(params ?? [])],
      )
      const plan = rows[0]?.['QUERY PLAN'][0].Plan as PlanNode
      const scan = nodes(plan).find((n) => n['Index Name'] === 'messages_search_idx')
      expect(scan?.['Node Type']).toBe('Bitmap Index Scan')
      expect(scan?.['Index Cond']).toMatch(/user_id = /)
      expect(scan?.['Actual Rows']).toBe(counts.ann)

      // the same for the plain search's function (drizzle-pg 0006), whose queries' plans only auto_explain
      // shows (nested statements, logged to this client): its generic plan has the user in the index
      // condition too, and finds ann's 3 matches the same way
      const logged: string[] = []
      client.on('notice', (notice) => logged.push(notice.message ?? ''))
      for (const setting of [
        "LOAD 'auto_explain'",
        'SET auto_explain.log_min_duration = 0',
        'SET auto_explain.log_nested_statements = on',
        'SET auto_explain.log_analyze = on',
        'SET auto_explain.log_format = json',
        'SET client_min_messages = log',
      ])
        await client.query(setting)
      const hits = pgKeywordHits(deploy, deploy, 'ann', 10)
      const found = await client.query(numberPlaceholders(hits.sql), [...(hits.params ?? [])])
      await client.query('RESET client_min_messages')
      expect(found.rows.map((r) => r.kind)).toEqual(['message', 'message', 'message'])
      const nested = logged
        .map((message) => message.slice(message.indexOf('{')))
        .filter(
          (json) => json.includes('engram_keyword_hits') === false && json.includes('messages_search_idx'),
        )
        .map((json) => JSON.parse(json) as { Plan: PlanNode })
      const fnScan = nested
        .flatMap((p) => nodes(p.Plan))
        .find((n) => n['Index Name'] === 'messages_search_idx')
      expect(fnScan?.['Node Type']).toBe('Bitmap Index Scan')
      expect(fnScan?.['Index Cond']).toMatch(/user_id = /)
      expect(fnScan?.['Actual Rows']).toBe(counts.ann)

      // a session's user changing moves its rows with it (a trigger keeps the copy)
      await client.query("UPDATE sessions SET user_id = 'dan' WHERE user_id = 'cat'")
      const owners = await client.query(
        'SELECT user_id, count(*)::int AS n FROM messages GROUP BY user_id ORDER BY user_id',
      )
      expect(owners.rows).toEqual([
        { user_id: 'ann', n: 203 },
        { user_id: 'bob', n: 240 },
        { user_id: 'dan', n: 225 },
      ])
      expect((await store.search('canary', { userId: 'dan', limit: 50 })).length).toBe(25)
      expect((await store.search('canary', { userId: 'cat', limit: 50 })).length).toBe(0)
    } finally {
      await client.end()
      await store.close()
    }
  })
})
