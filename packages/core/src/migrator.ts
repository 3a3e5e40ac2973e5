import { readMigrationFiles } from 'drizzle-orm/migrator'
import type { StorageDriver } from './driver.ts'
import { EngramError, isBusyError } from './errors.ts'
import { migrationsFolder } from './package-folder.ts'
import type { SchemaMigrations } from './types.ts'

/**
 * The SQLite migrations shipped with this package: `packages/core/drizzle/`, which drizzle-kit writes, or
 * its copy in `dist/drizzle/` in the published package (see package-folder.ts).
 */
export const DEFAULT_MIGRATIONS_FOLDER = migrationsFolder('drizzle')

// drizzle-kit's own bookkeeping table, so `drizzle-kit migrate` and this migrator agree on what ran.
export const MIGRATIONS_TABLE = '__drizzle_migrations'

type Migration = ReturnType<typeof readMigrationFiles>[number]

// libSQL servers refuse a PRAGMA that sets a value ("unsupported statement"), such as 0004's application_id:
// the header mark is for local files, so such statements are left out on remote databases.
const SETS_PRAGMA = /^\s*(?:--[^\n]*\n\s*)*PRAGMA\s+\w+\s*=/i

/** The migrations not applied yet, and how many the history records. */
async function pendingMigrations(
  driver: StorageDriver,
  migrations: Migration[],
): Promise<{ pending: Migration[]; recorded: number }> {
  const { rows } = await driver.execute<{ hash: string; created_at: number | string }>({
    sql: `SELECT hash, created_at FROM "${MIGRATIONS_TABLE}" ORDER BY created_at DESC`,
  })
  const known = new Set(migrations.map((m) => m.hash))
  const newest = migrations.at(-1)?.folderMillis ?? 0
  const last = rows[0]
  if (last && (Number(last.created_at) > newest || rows.some((r) => !known.has(r.hash)))) {
    throw new EngramError(
      'SCHEMA_TOO_NEW',
      'The database was migrated by a newer version of Engram than this one (it has migrations this code does not know). Upgrade @engram/core, or open a copy made for this version.',
    )
  }
  const lastApplied = last ? Number(last.created_at) : -1
  return { pending: migrations.filter((m) => m.folderMillis > lastApplied), recorded: rows.length }
}

/**
 * Applies the pending migrations of `migrationsFolder` in one write transaction, exactly as
 * drizzle-kit records them, and refuses a database migrated by a newer version of the code.
 * Returns how many migrations the history recorded before and after (from the reads it makes anyway).
 */
export async function migrate(
  driver: StorageDriver,
  migrationsFolder = DEFAULT_MIGRATIONS_FOLDER,
): Promise<SchemaMigrations> {
  const migrations = readMigrationFiles({ migrationsFolder })
  await driver.execute({
    sql: `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
  })
  const { pending, recorded } = await pendingMigrations(driver, migrations)
  if (pending.length === 0) return { before: recorded, after: recorded }
  try {
    await driver.batch(
      pending.flatMap((m) => [
        ...m.sql
          .filter((chunk) => chunk.trim() !== '' && !(driver.capabilities.remote && SETS_PRAGMA.test(chunk)))
          .map((sql) => ({ sql })),
        {
          sql: `INSERT INTO "${MIGRATIONS_TABLE}" ("hash", "created_at") VALUES (?, ?)`,
          params: [m.hash, m.folderMillis],
        },
      ]),
    )
  } catch (error) {
    // A lock held elsewhere is for the caller to wait for (open-store.ts), not a failed migration.
    if (isBusyError(error)) throw error
    // Another connection may have applied the same migrations between our read and our write lock.
    const now = await pendingMigrations(driver, migrations)
    if (now.pending.length === 0) return { before: recorded, after: now.recorded }
    throw new EngramError(
      'MIGRATION_FAILED',
      `Migrating the database failed and was rolled back: ${(error as Error).message}`,
      { cause: error },
    )
  }
  return { before: recorded, after: recorded + pending.length }
}
