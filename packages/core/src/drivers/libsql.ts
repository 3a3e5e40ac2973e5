import { createClient, type InStatement, type InValue, type ResultSet } from '@libsql/client'
import Database from 'libsql'
import type { QueryResult, Statement, StorageDriver } from '../driver.ts'
import { handlesOn } from './file-handles.ts'
import { finalizingStatements } from './libsql-statements.ts'
import { completeText } from './libsql-text.ts'
import { type SyncConnection, syncSqliteDriver } from './sync-sqlite.ts'

export interface LibsqlDriverOptions {
  /** A local file path or `:memory:`, or a remote url: `libsql://`, `http(s)://`, `ws(s)://`. */
  url: string
  /** Opens an existing local file read-only: every write fails with SQLITE_READONLY. */
  readonly?: boolean
  authToken?: string
  /** With a local file: the remote database this embedded replica syncs from. */
  syncUrl?: string
  syncIntervalSeconds?: number
}

const REMOTE_URL = /^(libsql|https?|wss?):\/\//i

const toStatement = ({ sql, params = [] }: Statement): InStatement => ({ sql, args: params as InValue[] })

// libSQL rows are already objects keyed by column name (their index keys are not enumerable), so they are
// passed on as they are: copying them costs about 5% of a large read.
const toResult = <R>(result: ResultSet): QueryResult<R> => ({
  rows: result.rows as unknown as R[],
  changes: result.rowsAffected || result.rows.length,
})

function remoteDriver(url: string, authToken: string | undefined): StorageDriver {
  const client = createClient({ url, authToken })
  return {
    name: 'libsql',
    capabilities: { localFile: false, remote: true },
    execute: async (statement) => toResult(await client.execute(toStatement(statement))),
    batch: async (statements) =>
      (await client.batch(statements.map(toStatement), 'write')).map((r) => toResult(r)),
    close: async () => client.close(),
  }
}

/**
 * libSQL: local files and embedded replicas through libSQL's synchronous binding (`libsql`, the engine
 * under `@libsql/client`), with cached prepared statements on one connection (the client prepares every
 * statement anew, at half the append speed); remote databases through `@libsql/client`.
 */
export function libsqlDriver(options: LibsqlDriverOptions): StorageDriver {
  if (REMOTE_URL.test(options.url)) return remoteDriver(options.url, options.authToken)
  const path = options.url.replace(/^file:/, '')
  // authToken and syncPeriod are options of the binding that its bundled typings omit.
  const replica = {
    syncUrl: options.syncUrl,
    authToken: options.authToken,
    syncPeriod: options.syncIntervalSeconds,
  }
  // The binding has no read-only option but reads SQLite urls, whose path is percent-encoded.
  const local = options.readonly ? `file:${path.replace(/[%?#]/g, encodeURIComponent)}?mode=ro` : path
  // The handles on the file that are not this connection's: settling after close waits for the others.
  const before = path === ':memory:' ? null : handlesOn(path)
  const db = options.syncUrl
    ? new Database(path, replica as ConstructorParameters<typeof Database>[1])
    : new Database(local)
  const statements = finalizingStatements(completeText(db as unknown as SyncConnection), () => {
    const now = before && handlesOn(path)
    // While another connection of this process holds the file, SQLite keeps a closed connection's
    // descriptors open until that one lets go of its locks (closing any would drop the process's POSIX
    // locks on the file), whatever the collector frees: nothing to wait for.
    if (!now || [...before].some((handle) => now.has(handle))) return false
    return [...now].some((handle) => !before.has(handle))
  })
  const driver = syncSqliteDriver('libsql', statements.connection, {
    // An embedded replica manages its own file (libSQL syncs its WAL), so the store leaves its pragmas alone.
    localFile: path !== ':memory:' && options.syncUrl === undefined,
    remote: options.syncUrl !== undefined,
  })
  const settlingErrors = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation()
    } catch (error) {
      await statements.settle()
      throw error
    }
  }
  return {
    ...driver,
    execute: (statement) => settlingErrors(() => driver.execute(statement)),
    batch: (batch) => settlingErrors(() => driver.batch(batch)),
    close: async () => {
      await driver.close()
      await statements.settle()
    },
  }
}
