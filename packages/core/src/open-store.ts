import { type ConnectionOptions, connect } from './connection.ts'
import { dialectOf } from './dialects/index.ts'
import type { StorageDriver } from './driver.ts'
import { toEngramError } from './errors.ts'
import { StoreContext, whileBusy } from './store/context.ts'
import { finishPendingTasks } from './store/maintenance.ts'
import { Store } from './store/store.ts'
import { type ResolvedStoreSettings, resolveStoreSettings, type StoreOptions } from './store-options.ts'
import type { SchemaMigrations } from './types.ts'

/**
 * Opens (creating if needed) a session store: connects with the driver the url calls for, applies the
 * pragmas, checks FTS5, runs pending migrations and finishes what they leave to the store (reindexing a
 * database written by an older version: once, in one transaction).
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const settings = resolveStoreSettings(options)
  const driver = await connect(settings).catch((error) => {
    throw toEngramError(error, `Opening the database ${options.url ?? ''}`.trim())
  })
  return open(driver, settings)
}

/** Opens a store on a driver you built yourself (any `StorageDriver`); it is closed if opening fails. */
export function openStoreWithDriver(
  driver: StorageDriver,
  options: Omit<StoreOptions, keyof ConnectionOptions> = {},
): Promise<Store> {
  return open(driver, resolveStoreSettings(options))
}

async function open(driver: StorageDriver, settings: ResolvedStoreSettings): Promise<Store> {
  const dialect = dialectOf(driver)
  let migrations: SchemaMigrations
  try {
    // Another process opening the same new file holds its write lock while it migrates it: wait for it as
    // every write does (the busy timeout, then the retry policy), not for the busy timeout alone.
    migrations = await whileBusy(() => dialect.prepare(driver, settings), settings.retry)
  } catch (error) {
    await driver.close().catch(() => undefined)
    throw toEngramError(error, 'Opening the store')
  }
  const ctx = new StoreContext(dialect.storeDriver(driver), dialect, settings.retry, settings.busyTimeout)
  await ctx.findDeferredIndex()
  // what the migrations left to the store (a read-only store reads the index as it is until a writer opens)
  if (settings.readOnly !== true) {
    try {
      await finishPendingTasks(ctx)
    } catch (error) {
      await driver.close().catch(() => undefined)
      throw toEngramError(error, 'Reindexing the database after its upgrade')
    }
  }
  return new Store(ctx, migrations)
}
