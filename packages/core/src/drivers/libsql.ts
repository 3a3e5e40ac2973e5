import { type Client, createClient, type InStatement, type InValue, type ResultSet } from '@libsql/client'
import type { QueryResult, Row, Statement, StorageDriver } from '../driver.ts'

export interface LibsqlDriverOptions {
  /** `file:path`, `:memory:`, `libsql://`, `http(s)://` or `ws(s)://`. */
  url: string
  authToken?: string
  /** With a local `file:` url: the remote database this embedded replica syncs from. */
  syncUrl?: string
  syncIntervalSeconds?: number
}

const toStatement = ({ sql, params = [] }: Statement): InStatement => ({ sql, args: params as InValue[] })

const toResult = <R>(result: ResultSet): QueryResult<R> => {
  const { columns } = result
  const rows = result.rows.map((values) => {
    const row: Row = {}
    for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i]
    return row as R
  })
  return { rows, changes: result.rowsAffected || rows.length }
}

export function libsqlDriver(options: LibsqlDriverOptions): StorageDriver {
  const client: Client = createClient({
    url: options.url,
    authToken: options.authToken,
    syncUrl: options.syncUrl,
    syncInterval: options.syncIntervalSeconds,
    // One connection: the pragmas the store applies at open would not reach connections a pool adds later.
    concurrency: 1,
  })
  const remote = !options.url.startsWith('file:') && options.url !== ':memory:'

  return {
    name: 'libsql',
    capabilities: {
      localFile: options.url.startsWith('file:'),
      remote: remote || options.syncUrl !== undefined,
      durableMemoryDatabase: false,
    },
    execute: async (statement) => toResult(await client.execute(toStatement(statement))),
    batch: async (statements) =>
      (await client.batch(statements.map(toStatement), 'write')).map((r) => toResult<Row>(r)),
    close: async () => client.close(),
  }
}
