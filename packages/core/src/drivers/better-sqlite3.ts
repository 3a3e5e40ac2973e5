import Database from 'better-sqlite3'
import type { StorageDriver } from '../driver.ts'
import { type SyncConnection, syncSqliteDriver } from './sync-sqlite.ts'

export interface BetterSqlite3DriverOptions {
  /** A file path, or ':memory:'. */
  path: string
}

export function betterSqlite3Driver({ path }: BetterSqlite3DriverOptions): StorageDriver {
  return syncSqliteDriver('better-sqlite3', new Database(path) as unknown as SyncConnection, {
    localFile: path !== ':memory:',
    remote: false,
  })
}
