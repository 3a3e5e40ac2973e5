import { readMigrationFiles } from 'drizzle-orm/migrator'
import type { StorageDriver } from './driver.ts'
import { EngramError } from './errors.ts'
import { DEFAULT_MIGRATIONS_FOLDER, MIGRATIONS_TABLE } from './migrator.ts'

/** SQLite's `application_id` of an Engram database ("Engr"), set by migration 0004_application_id. */
export const ENGRAM_APPLICATION_ID = 0x456e6772

const hex = (id: number) => `0x${(id >>> 0).toString(16).padStart(8, '0')}`

function foreign(cause: string): EngramError {
  return new EngramError(
    'FOREIGN_DATABASE',
    `Opening the store: the file is not an Engram database (${cause}). It was left untouched. Point the store at a new path, an empty file or an Engram database.`,
  )
}

/**
 * Refuses a database that another application made, by reading only: a file is ours if its header
 * carries ENGRAM_APPLICATION_ID, or if it is empty (at most an empty migrations table, left by an opener
 * that stopped before migrating), or if it predates the mark and its drizzle history holds one of our
 * migrations. Call it before anything writes (journal mode, migrations).
 *
 * @throws EngramError FOREIGN_DATABASE, or the driver's error if the file cannot be read at all.
 * Cost: three small reads of the schema and the migration history.
 */
export async function assertEngramDatabase(
  driver: StorageDriver,
  migrationsFolder = DEFAULT_MIGRATIONS_FOLDER,
): Promise<void> {
  const { rows: header } = await driver.execute<{ application_id: number }>({ sql: 'PRAGMA application_id' })
  const applicationId = Number(header[0]?.application_id ?? 0)
  if (applicationId === ENGRAM_APPLICATION_ID) return
  if (applicationId !== 0) throw foreign(`its application_id is ${hex(applicationId)}, another application's`)

  const { rows: objects } = await driver.execute<{ name: string }>({
    sql: "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
  })
  const names = objects.map((o) => o.name)
  const others = names.filter((n) => n !== MIGRATIONS_TABLE)
  const history = names.includes(MIGRATIONS_TABLE)
    ? (await driver.execute<{ hash: string }>({ sql: `SELECT hash FROM "${MIGRATIONS_TABLE}"` })).rows
    : []
  if (others.length === 0 && history.length === 0) return

  const ours = new Set(readMigrationFiles({ migrationsFolder }).map((m) => m.hash))
  if (history.some((row) => ours.has(row.hash))) return
  const listed = others.slice(0, 5).join(', ') + (others.length > 5 ? ', ...' : '')
  throw foreign(
    history.length > 0
      ? `its ${MIGRATIONS_TABLE} history holds none of Engram's migrations`
      : `it holds tables Engram did not create (${listed}) and no Engram migration history`,
  )
}
