import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preparePostgres } from '../src/dialects/postgres/migrations.ts'
import { pgliteDriver } from '../src/drivers/pglite.ts'
import { openStoreWithDriver } from '../src/open-store.ts'

const PG_MIGRATIONS = fileURLToPath(new URL('../drizzle-pg', import.meta.url))
const TAG = '_session_model_config'

let database: PGlite
beforeAll(async () => {
  database = await PGlite.create()
})
afterAll(() => database?.close())

// The SQLite side of this migration is in the store contract (sqliteFile drivers): an old row reads null.
describe("PostgreSQL's model_config migration on a populated schema", () => {
  it('leaves the sessions written before it with no model settings, and runs again as a no-op', async () => {
    const old = join(mkdtempSync(join(tmpdir(), 'engram-pg-mc-')), 'drizzle-pg')
    cpSync(PG_MIGRATIONS, old, { recursive: true })
    const journalPath = join(old, 'meta', '_journal.json')
    const journal = JSON.parse(readFileSync(journalPath, 'utf8'))
    const at = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith(TAG))
    expect(at).toBeGreaterThan(0)
    const migration = readFileSync(join(PG_MIGRATIONS, `${journal.entries[at].tag}.sql`), 'utf8')
    journal.entries = journal.entries.slice(0, at)
    writeFileSync(journalPath, JSON.stringify(journal))

    const driver = pgliteDriver({ database, schema: 'model_config_upgrade' })
    await preparePostgres(driver, old)
    await driver.batch([{ sql: "INSERT INTO sessions (id, source, started_at) VALUES ('old-s', 'cli', 1)" }])
    const store = await openStoreWithDriver(driver, {})
    try {
      expect(await store.getSession('old-s')).toMatchObject({ id: 'old-s', modelConfig: null })
      await store.setModelConfig('old-s', { contextWindow: 6000 })
      // The store contract re-runs migrations: this one's SQL, run again, changes nothing.
      await driver.execute({ sql: migration })
      expect((await store.getSession('old-s'))?.modelConfig).toEqual({ contextWindow: 6000 })
    } finally {
      await store.close()
    }
  })
})
