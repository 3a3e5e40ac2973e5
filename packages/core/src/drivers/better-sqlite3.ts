import Database from 'better-sqlite3'
import type { QueryResult, Row, Statement, StorageDriver } from '../driver.ts'

export interface BetterSqlite3DriverOptions {
  /** A file path, or ':memory:'. */
  path: string
}

export function betterSqlite3Driver({ path }: BetterSqlite3DriverOptions): StorageDriver {
  const db = new Database(path)
  const cache = new Map<string, Database.Statement>()

  const prepare = (sql: string) => {
    let prepared = cache.get(sql)
    if (!prepared) {
      prepared = db.prepare(sql)
      cache.set(sql, prepared)
    }
    return prepared
  }

  const run = <R>({ sql, params = [] }: Statement): QueryResult<R> => {
    const prepared = prepare(sql)
    if (prepared.reader) {
      const rows = prepared.all(...params) as R[]
      return { rows, changes: rows.length }
    }
    return { rows: [], changes: prepared.run(...params).changes }
  }

  const runAll = db.transaction((statements: readonly Statement[]) => statements.map((s) => run<Row>(s)))

  return {
    name: 'better-sqlite3',
    capabilities: { localFile: path !== ':memory:', remote: false, durableMemoryDatabase: true },
    execute: async (statement) => run(statement),
    batch: async (statements) => runAll.immediate(statements),
    close: async () => {
      cache.clear()
      db.close()
    },
  }
}
