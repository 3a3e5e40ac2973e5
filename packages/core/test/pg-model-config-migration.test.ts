import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStoreWithDriver } from '../src/open-store.ts'
import { newPglite } from './pglite-template.ts'
import { pgliteBefore } from './postgres-helpers.ts'

let database: PGlite
beforeAll(async () => {
  database = await newPglite()
})
afterAll(() => database?.close())

// The SQLite side of this migration is in the store contract (sqliteFile drivers): an old row reads null.
describe("PostgreSQL's model_config migration on a populated schema", () => {
  it('leaves the sessions written before it with no model settings, and runs again as a no-op', async () => {
    const { driver, migration } = await pgliteBefore(database, 'model_config_upgrade', (tag) =>
      tag.endsWith('_session_model_config'),
    )
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
