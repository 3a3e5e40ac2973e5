import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll } from 'vitest'
import { pgliteDriver } from '../src/drivers/pglite.ts'
import { POSTGRES_CAPABILITIES, storeContract } from '../src/testing/index.ts'
import { newPglite } from './pglite-template.ts'
import { schemaOf } from './postgres-helpers.ts'

// One PGlite for the whole file (it takes seconds to start): each database path is a schema in it.
let database: PGlite
beforeAll(async () => {
  database = await newPglite()
})
afterAll(() => database?.close())

storeContract(
  'pglite',
  (path, { readOnly }) => pgliteDriver({ database, schema: schemaOf(path), readonly: readOnly }),
  POSTGRES_CAPABILITIES,
)
