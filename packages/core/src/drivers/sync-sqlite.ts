import type { DriverCapabilities, QueryResult, Row, Statement, StorageDriver } from '../driver.ts'

/** The synchronous, better-sqlite3-style connection API that both better-sqlite3 and libSQL's binding offer. */
export interface SyncConnection {
  prepare(sql: string): SyncStatement
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R }
  close(): void
}

export interface SyncStatement {
  readonly reader: boolean
  all(params: readonly unknown[]): unknown[]
  run(params: readonly unknown[]): { changes: number | bigint }
}

/** A StorageDriver over a synchronous connection, with prepared statements cached by SQL text. */
export function syncSqliteDriver(
  name: string,
  db: SyncConnection,
  capabilities: DriverCapabilities,
): StorageDriver {
  const cache = new Map<string, SyncStatement>()

  const prepare = (sql: string) => {
    let prepared = cache.get(sql)
    if (!prepared) {
      prepared = db.prepare(sql)
      cache.set(sql, prepared)
    }
    return prepared
  }

  // Parameters go in as one array: both clients bind it positionally, and libSQL would read a single
  // spread-out argument that is null or an object as named parameters.
  const run = <R>({ sql, params = [] }: Statement): QueryResult<R> => {
    const prepared = prepare(sql)
    if (prepared.reader) {
      const rows = prepared.all(params) as R[]
      return { rows, changes: rows.length }
    }
    return { rows: [], changes: Number(prepared.run(params).changes) }
  }

  const runAll = db.transaction((statements: readonly Statement[]) => statements.map((s) => run<Row>(s)))

  return {
    name,
    capabilities,
    execute: async (statement) => run(statement),
    batch: async (statements) => runAll.immediate(statements),
    close: async () => {
      cache.clear()
      db.close()
    },
  }
}
