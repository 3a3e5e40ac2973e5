import { type ConnectionOptions, connect } from './connection.ts'
import { dialectOf } from './dialects/index.ts'
import type { StorageDriver } from './driver.ts'
import { toEngramError } from './errors.ts'
import { StoreContext } from './store/context.ts'
import { Store } from './store/store.ts'
import { type ResolvedStoreSettings, resolveStoreSettings, type StoreOptions } from './store-options.ts'
import type { SchemaMigrations } from './types.ts'

/**
 * Opens (creating if needed) a session store: connects with the driver the url calls for, applies the
 * pragmas, checks FTS5 and runs pending migrations.
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
    migrations = await dialect.prepare(driver, settings)
  } catch (error) {
    await driver.close().catch(() => undefined)
    throw toEngramError(error, 'Opening the store')
  }
  return new Store(
    new StoreContext(dialect.storeDriver(driver), dialect, settings.retry, settings.busyTimeout),
    migrations,
  )
}
