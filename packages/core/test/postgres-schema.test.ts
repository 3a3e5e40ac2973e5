import { getTableColumns, type Table } from 'drizzle-orm'
import { expect, it } from 'vitest'
import * as postgres from '../src/dialects/postgres/schema/index.ts'
import * as sqlite from '../src/schema/index.ts'

/**
 * Columns only the PostgreSQL dialect has: its stand-in for SQLite's rowid, its search vectors, and the
 * session's user copied onto the searched rows for their index (not a logical column there).
 */
const POSTGRES_ONLY = new Set(['rowid', 'searchVector'])
const SEARCHED_ONLY = new Set([...POSTGRES_ONLY, 'userId'])

const shape = (table: Table, skip = new Set<string>()) =>
  Object.entries(getTableColumns(table))
    .filter(([key]) => !skip.has(key))
    .map(([key, column]) => [key, column.name, column.notNull, column.hasDefault] as const)
    .sort()

it('the PostgreSQL schema has the logical tables of the SQLite one: the same columns, names, nullability and defaults', () => {
  const pairs = [
    ['sessions', postgres.sessions, sqlite.sessions],
    ['messages', postgres.messages, sqlite.messages, SEARCHED_ONLY],
    ['episodes', postgres.episodes, sqlite.episodes, SEARCHED_ONLY],
    ['model_calls', postgres.modelCalls, sqlite.modelCalls],
  ] as const
  for (const [name, pgTable, sqliteTable, skip = POSTGRES_ONLY] of pairs) {
    expect(shape(pgTable, skip), name).toEqual(shape(sqliteTable))
  }
})
