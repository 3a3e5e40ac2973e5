import { drizzle, type SqliteRemoteDatabase } from 'drizzle-orm/sqlite-proxy'
import type { Row, Statement, StorageDriver } from './driver.ts'
import * as schema from './schema/index.ts'

/** The typed drizzle database over a store's tables: `store.db`. */
export type EngramDatabase = SqliteRemoteDatabase<typeof schema>

// drizzle's proxy reads rows as arrays in column order; drivers return objects keyed by column name,
// whose values keep that order (two selected columns of the same name need an alias to stay apart).
const answer = (rows: Row[], method: 'run' | 'all' | 'values' | 'get') => {
  if (method === 'run') return { rows: [] }
  const values = rows.map((row) => Object.values(row))
  return { rows: (method === 'get' ? values[0] : values) as unknown[] }
}

/**
 * A drizzle database (`sqlite-proxy`) that runs its queries on `driver`: every query builder call is one
 * `execute`, and `db.batch([...])` is one `batch` (one write transaction).
 */
export function drizzleOver(driver: StorageDriver): EngramDatabase {
  return drizzle(
    async (sql, params, method) => answer((await driver.execute({ sql, params })).rows, method),
    async (queries) => {
      const results = await driver.batch(queries.map(({ sql, params }) => ({ sql, params })))
      return results.map(({ rows }, i) => answer(rows, queries[i]?.method ?? 'all'))
    },
    { schema },
  )
}

/** The statement a drizzle query builder would run, for the store's retried write transactions. */
export const statementOf = (query: { toSQL(): { sql: string; params: unknown[] } }): Statement =>
  query.toSQL() as Statement
