import Database from 'better-sqlite3'
import LibsqlDatabase from 'libsql'
import { betterSqlite3Driver } from '../src/drivers/better-sqlite3.ts'
import { libsqlDriver } from '../src/drivers/libsql.ts'
import { type SyncConnection, syncSqliteDriver } from '../src/drivers/sync-sqlite.ts'
import type { StorageDriver } from '../src/index.ts'
import { storeContract } from '../src/testing/index.ts'
import { driversUnderTest } from './helpers.ts'

const LOCAL = { localFile: true, remote: false }

/** Our drivers as the contract opens them; read-only through each client's own read-only open. */
const factories: Record<
  ReturnType<typeof driversUnderTest>[number],
  (path: string, options: { readOnly: boolean }) => StorageDriver
> = {
  'better-sqlite3': (path, { readOnly }) =>
    readOnly
      ? syncSqliteDriver(
          'better-sqlite3',
          new Database(path, { readonly: true }) as unknown as SyncConnection,
          LOCAL,
        )
      : betterSqlite3Driver({ path }),
  // libSQL's binding has no readonly option but takes SQLite's URI form.
  libsql: (path, { readOnly }) =>
    readOnly
      ? syncSqliteDriver(
          'libsql',
          new LibsqlDatabase(`file:${path}?mode=ro`) as unknown as SyncConnection,
          LOCAL,
        )
      : libsqlDriver({ url: path }),
}

for (const driver of driversUnderTest()) storeContract(driver, factories[driver])
