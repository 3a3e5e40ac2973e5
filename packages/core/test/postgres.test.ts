import { afterAll, beforeAll } from 'vitest'
import { pgDriver } from '../src/drivers/pg.ts'
import { POSTGRES_CAPABILITIES, storeContract } from '../src/testing/index.ts'
import { schemaOf } from './postgres-helpers.ts'
import { type PostgresServer, startPostgres } from './postgres-server.ts'

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

storeContract(
  'pg',
  (path, { readOnly }) =>
    pgDriver({ url: server.url, schema: schemaOf(path), readonly: readOnly, poolSize: 4 }),
  POSTGRES_CAPABILITIES,
)
