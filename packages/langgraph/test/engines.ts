import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DriverName, openStore, type Store, type StoreOptions } from '@engram/core'
import { newPglite } from '../../core/test/pglite-template.ts'
import { type PostgresServer, startPostgres } from '../../core/test/postgres-server.ts'

/**
 * The four engines the package is tested on, each a real database: an SQLite file (better-sqlite3,
 * libSQL), PGlite in this process, and a PostgreSQL server started for the file (test/postgres-server.ts).
 */
export const ENGINES: readonly DriverName[] = ['better-sqlite3', 'libsql', 'pglite', 'pg']

export interface EngineUnderTest {
  readonly name: DriverName
  /** Starts what the engine needs (a folder, a server). */
  start(): Promise<void>
  /** The store options of a database of this engine; `database` names one (a file, a schema). */
  options(database: string): StoreOptions
  /** Opens a store on a database of this engine. */
  open(database?: string): Promise<Store>
  stop(): Promise<void>
}

export function engineUnderTest(name: DriverName): EngineUnderTest {
  let folder = ''
  let server: PostgresServer | undefined
  const engine: EngineUnderTest = {
    name,
    async start() {
      folder = mkdtempSync(join(tmpdir(), `engram-langgraph-${name}-`))
      if (name === 'pg') server = await startPostgres()
    },
    options(database) {
      if (name === 'pg') return { url: server?.url, schema: database.replace(/\W/g, '_') }
      if (name === 'pglite') return { url: `pglite:${join(folder, database)}` }
      return { url: join(folder, `${database}.db`), driver: name }
    },
    async open(database = 'main') {
      const options = engine.options(database)
      // A new PGlite database starts from the data folder PGlite's initdb made once (pglite-template.ts).
      const dir = name === 'pglite' ? join(folder, database) : undefined
      if (dir !== undefined && !existsSync(dir)) await (await newPglite(dir)).close()
      return openStore(options)
    },
    async stop() {
      server?.stop()
      rmSync(folder, { recursive: true, force: true })
    },
  }
  return engine
}
