import { getTableColumns, type Table } from 'drizzle-orm'
import { expect, it } from 'vitest'
import * as postgres from '../src/dialects/postgres/schema/index.ts'
import * as sqlite from '../src/schema/index.ts'

/** Columns only the PostgreSQL dialect has: its stand-in for SQLite's rowid and its search vectors. */
const POSTGRES_ONLY = new Set(['rowid', 'searchVector'])

const shape = (table: Table, skip = new Set<string>()) =>
  Object.entries(getTableColumns(table))
    .filter(([key]) => !skip.has(key))
    .map(([key, column]) => [key, column.name, column.notNull, column.hasDefault] as const)
    .sort()

it('the PostgreSQL schema has the logical tables of the SQLite one: the same columns, names, nullability and defaults', () => {
  const pairs = [
    ['sessions', postgres.sessions, sqlite.sessions],
    ['messages', postgres.messages, sqlite.messages],
    ['episodes', postgres.episodes, sqlite.episodes],
    ['model_calls', postgres.modelCalls, sqlite.modelCalls],
  ] as const
  for (const [name, pgTable, sqliteTable] of pairs) {
    expect(shape(pgTable, POSTGRES_ONLY), name).toEqual(shape(sqliteTable))
  }
})
