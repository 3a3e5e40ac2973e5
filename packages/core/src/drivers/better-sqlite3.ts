import Database from 'better-sqlite3'
import type { StorageDriver } from '../driver.ts'
import { type SyncConnection, syncSqliteDriver } from './sync-sqlite.ts'

export interface BetterSqlite3DriverOptions {
  /** A file path, or ':memory:'. */
  path: string
  /** Opens an existing file read-only: every write fails with SQLITE_READONLY. */
  readonly?: boolean
}

export function betterSqlite3Driver({ path, readonly = false }: BetterSqlite3DriverOptions): StorageDriver {
  return syncSqliteDriver('better-sqlite3', new Database(path, { readonly }) as unknown as SyncConnection, {
    localFile: path !== ':memory:',
    remote: false,
  })
}
