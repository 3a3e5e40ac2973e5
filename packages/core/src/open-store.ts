import { type ConnectionOptions, connect } from './connection.ts'
import type { StorageDriver } from './driver.ts'
import { EngramError, toEngramError } from './errors.ts'
import { migrate } from './migrator.ts'
import { DEFAULT_RETRY, type RetryPolicy, StoreContext } from './store/context.ts'
import { Store } from './store/store.ts'

export interface StoreOptions extends ConnectionOptions {
  /** How long SQLite itself waits for a lock before the store's own retries start (ms, default 1000). */
  busyTimeout?: number
  journalMode?: 'WAL' | 'DELETE' | 'TRUNCATE' | 'PERSIST' | 'MEMORY' | 'OFF'
  synchronous?: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'
  retry?: Partial<RetryPolicy>
  /** Where the drizzle migrations live (default: the repository's `drizzle/` folder). */
  migrationsFolder?: string
}

async function applyPragmas(driver: StorageDriver, options: StoreOptions): Promise<void> {
  const busyTimeout = options.busyTimeout ?? 1000
  if (!Number.isInteger(busyTimeout) || busyTimeout < 0) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `busyTimeout must be a whole number of milliseconds (got ${busyTimeout}).`,
    )
  }
  await driver.execute({ sql: `PRAGMA busy_timeout = ${busyTimeout}` })
  if (!driver.capabilities.localFile) return
  await driver.execute({ sql: `PRAGMA journal_mode = ${options.journalMode ?? 'WAL'}` })
  await driver.execute({ sql: `PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}` })
}

async function assertFts5(driver: StorageDriver): Promise<void> {
  try {
    await driver.execute({ sql: 'CREATE VIRTUAL TABLE IF NOT EXISTS temp.engram_fts5_probe USING fts5(x)' })
    await driver.execute({ sql: 'DROP TABLE temp.engram_fts5_probe' })
  } catch (cause) {
    if (!/no such module/i.test((cause as Error).message)) throw cause
    throw new EngramError(
      'FTS5_MISSING',
      'This SQLite build has no FTS5 module, which full-text search needs. Use better-sqlite3 or @libsql/client, which both bundle it.',
      { cause },
    )
  }
}

/**
 * Opens (creating if needed) a session store: connects with the driver the url calls for, applies the
 * pragmas, checks FTS5 and runs pending migrations.
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const driver = await connect(options).catch((error) => {
    throw toEngramError(error, `Opening the database ${options.url ?? ''}`.trim())
  })
  if (
    !driver.capabilities.durableMemoryDatabase &&
    (options.url === ':memory:' || options.url === 'file::memory:')
  ) {
    await driver.close()
    throw new EngramError(
      'UNSUPPORTED',
      `The ${driver.name} driver loses an in-memory database between transactions. Use a temporary file, or driver: 'better-sqlite3' for ':memory:'.`,
    )
  }
  return openStoreWithDriver(driver, options)
}

/** Opens a store on a driver you built yourself (any `StorageDriver`); it is closed if opening fails. */
export async function openStoreWithDriver(
  driver: StorageDriver,
  options: Omit<StoreOptions, keyof ConnectionOptions> = {},
): Promise<Store> {
  try {
    await applyPragmas(driver, options)
    await assertFts5(driver)
    await migrate(driver, options.migrationsFolder)
  } catch (error) {
    await driver.close().catch(() => undefined)
    throw toEngramError(error, 'Opening the store')
  }
  return new Store(new StoreContext(driver, { ...DEFAULT_RETRY, ...options.retry }))
}
