import { setTimeout as sleep } from 'node:timers/promises'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import type { StorageDriver } from '../../driver.ts'
import { isTransientPgError, pgCode, UNREACHABLE_CODES } from '../../drivers/pg-errors.ts'
import { EngramError } from '../../errors.ts'
import { MIGRATIONS_TABLE, migrate } from '../../migrator.ts'
import { migrationsFolder } from '../../package-folder.ts'
import type { SchemaMigrations } from '../../types.ts'

/**
 * The PostgreSQL migrations shipped with this package: `packages/core/drizzle-pg/`, which drizzle-kit
 * writes, or its copy in `dist/drizzle-pg/` in the published package (see package-folder.ts).
 */
const DEFAULT_PG_MIGRATIONS_FOLDER = migrationsFolder('drizzle-pg')

const foreign = (cause: string) =>
  new EngramError(
    'FOREIGN_DATABASE',
    `Opening the store: the schema is not an Engram schema (${cause}). It was left untouched. Pass another schema (schema option), or an empty database.`,
  )

/** A store that `create: false` will not make: the schema is missing, or holds no Engram tables. */
async function noStore(driver: StorageDriver, what: string): Promise<EngramError> {
  const { rows } = await driver.execute<{ path: string }>({
    sql: "SELECT current_setting('search_path') AS path",
  })
  return new EngramError(
    'DATABASE_MISSING',
    `Opening the store: the schema ${rows[0]?.path ?? ''} ${what}, and nothing was created (this store is opened to be read, not made). Check the url's schema= parameter (or the schema option) names the schema the store is in.`,
  )
}

/**
 * Creates the connection's schema when it is missing (its search_path names exactly one schema); with
 * `create` false, a missing schema is refused instead.
 */
async function ensureSchema(driver: StorageDriver, create: boolean): Promise<void> {
  const { rows } = await driver.execute<{ current: string | null }>({
    sql: 'SELECT current_schema() AS current',
  })
  if (rows[0]?.current) return
  if (!create) throw await noStore(driver, 'does not exist in this database')
  await driver.execute({
    sql: "DO $$ BEGIN EXECUTE 'CREATE SCHEMA IF NOT EXISTS ' || current_setting('search_path'); END $$",
  })
}

/**
 * Refuses a schema holding tables another application made (reads only; see assertEngramDatabase).
 * Returns the number of migrations when its history holds exactly ours (a read-only connection need not
 * migrate), null when there is something to migrate.
 */
async function assertEngramSchema(driver: StorageDriver, migrationsFolder: string): Promise<number | null> {
  const { rows } = await driver.execute<{ name: string }>({
    sql: 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1',
  })
  const names = rows.map((r) => r.name)
  const others = names.filter((n) => n !== MIGRATIONS_TABLE)
  const history = names.includes(MIGRATIONS_TABLE)
    ? (await driver.execute<{ hash: string }>({ sql: `SELECT hash FROM "${MIGRATIONS_TABLE}"` })).rows
    : []
  if (others.length === 0 && history.length === 0) return null
  const ours = new Set(readMigrationFiles({ migrationsFolder }).map((m) => m.hash))
  if (history.some((row) => ours.has(row.hash)))
    return history.length === ours.size && history.every((row) => ours.has(row.hash)) ? history.length : null
  throw foreign(
    history.length > 0
      ? `its ${MIGRATIONS_TABLE} history holds none of Engram's migrations`
      : `it holds tables Engram did not create (${others.slice(0, 5).join(', ')}) and no Engram migration history`,
  )
}

/** Whether the schema holds Engram's migration history (a store, perhaps one migration behind). */
async function hasMigrationHistory(driver: StorageDriver): Promise<boolean> {
  const { rows } = await driver.execute<{ n: number | string }>({
    sql: 'SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?',
    params: [MIGRATIONS_TABLE],
  })
  return Number(rows[0]?.n ?? 0) > 0
}

/** A catalog entry another connection created between our check and our CREATE (duplicate type, table, schema, key). */
const CREATED_MEANWHILE = new Set(['42710', '42P07', '42P06', '23505'])
const OPEN_ATTEMPTS = 5

/**
 * Opens a PostgreSQL store's schema: creates it if missing, checks it is ours, applies pending migrations.
 * Several processes opening a new schema at once race on its `CREATE ... IF NOT EXISTS`; the losers start
 * over and find the winner's work done. A connection lost under way (a server restarting) starts over too.
 */
export async function preparePostgres(
  driver: StorageDriver,
  migrationsFolder = DEFAULT_PG_MIGRATIONS_FOLDER,
  create = true,
): Promise<SchemaMigrations> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureSchema(driver, create)
      const upToDate = await assertEngramSchema(driver, migrationsFolder)
      if (!create && upToDate === null && !(await hasMigrationHistory(driver)))
        throw await noStore(driver, 'holds no Engram store')
      return upToDate === null
        ? await migrate(driver, migrationsFolder)
        : { before: upToDate, after: upToDate }
    } catch (error) {
      const code = pgCode((error as Error).cause ?? error) ?? ''
      // A connection the server ended under way (it is restarting) is opened again; a server that refuses
      // or cannot be found is reported at once (DATABASE_UNREACHABLE), for the caller to wait out or fix.
      const lost = isTransientPgError((error as Error).cause ?? error) && !UNREACHABLE_CODES.has(code)
      if (!(CREATED_MEANWHILE.has(code) || lost) || attempt >= OPEN_ATTEMPTS) throw error
      await sleep((20 + Math.random() * 100) * attempt)
    }
  }
}
