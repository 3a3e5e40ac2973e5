import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import { preparePostgres } from '../src/dialects/postgres/migrations.ts'
import type { StorageDriver } from '../src/driver.ts'
import { pgliteDriver } from '../src/drivers/pglite.ts'
import { migrationsBefore } from './helpers.ts'

const PG_MIGRATIONS = fileURLToPath(new URL('../drizzle-pg', import.meta.url))

/** Each database path of the contract is a schema of its own on one server (or one PGlite). */
export const schemaOf = (path: string) => `c_${createHash('sha1').update(path).digest('hex').slice(0, 24)}`

/**
 * A schema of `database` migrated up to, not including, the first PostgreSQL migration whose tag `isTag`
 * matches (from a copy of the migrations folder with a shortened journal), and that migration's SQL: to
 * test a migration on rows written before it.
 */
export async function pgliteBefore(
  database: PGlite,
  schema: string,
  isTag: (tag: string) => boolean,
): Promise<{ driver: StorageDriver; migration: string }> {
  const { folder: old, tag } = migrationsBefore(PG_MIGRATIONS, isTag)
  const migration = readFileSync(join(PG_MIGRATIONS, `${tag}.sql`), 'utf8')
  const driver = pgliteDriver({ database, schema })
  await preparePostgres(driver, old)
  return { driver, migration }
}
