import { assertEngramDatabase } from '../../database-identity.ts'
import type { StorageDriver } from '../../driver.ts'
import { EngramError } from '../../errors.ts'
import { migrate } from '../../migrator.ts'
import type { ResolvedStoreSettings } from '../../store-options.ts'
import type { SchemaMigrations } from '../../types.ts'

// A server, or an embedded replica's primary, owns its own settings (replicas refuse PRAGMAs). Foreign
// keys are per connection and off by default in SQLite itself: deleting a session relies on them.
async function setConnectionPragmas(driver: StorageDriver, settings: ResolvedStoreSettings): Promise<void> {
  if (driver.capabilities.remote) return
  await driver.execute({ sql: `PRAGMA busy_timeout = ${settings.busyTimeout}` })
  await driver.execute({ sql: 'PRAGMA foreign_keys = ON' })
}

/** WAL pages after which SQLite checkpoints (see applyFilePragmas). */
const WAL_AUTOCHECKPOINT_PAGES = 4000

// Changes the file: only after assertEngramDatabase found it is ours.
async function applyFilePragmas(driver: StorageDriver, settings: ResolvedStoreSettings): Promise<void> {
  if (!driver.capabilities.localFile) return
  // Set only when it differs: changing it writes to the file, which a read-only connection cannot.
  const { rows } = await driver.execute<{ journal_mode: string }>({ sql: 'PRAGMA journal_mode' })
  if (rows[0]?.journal_mode.toUpperCase() !== settings.journalMode)
    await driver.execute({ sql: `PRAGMA journal_mode = ${settings.journalMode}` })
  await driver.execute({ sql: `PRAGMA synchronous = ${settings.synchronous}` })
  // SQLite checkpoints the WAL once it holds this many pages (its default is 1,000). An append writes about
  // a dozen pages (the row, its indexes, a new FTS5 segment, the session's counters), so at 1,000 a
  // checkpoint, which copies pages back and syncs the file, ran every ~90 appends; at 4,000 every ~350,
  // and pages written again in between are copied once (docs/benchmarks.md: W1). The WAL then stays under
  // about 16 MB between checkpoints; close() truncates it.
  await driver.execute({ sql: `PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}` })
}

async function assertFts5(driver: StorageDriver): Promise<void> {
  // Remote databases cannot create the temp probe; a server without FTS5 fails the migration instead.
  if (driver.capabilities.remote) return
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

/** Applies the pragmas, checks the file is ours and has FTS5, and runs pending migrations. */
export async function prepareSqlite(
  driver: StorageDriver,
  settings: ResolvedStoreSettings,
): Promise<SchemaMigrations> {
  await setConnectionPragmas(driver, settings)
  // A server's database is named by its url, and its header cannot be marked (see the migrator).
  if (!driver.capabilities.remote) await assertEngramDatabase(driver, settings.migrationsFolder)
  await applyFilePragmas(driver, settings)
  await assertFts5(driver)
  return migrate(driver, settings.migrationsFolder)
}
