import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect } from 'vitest'
import type { SqlValue, StorageDriver } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { openStoreWithDriver } from '../open-store.ts'
import type { Store } from '../store/store.ts'

type StoreSettings = Parameters<typeof openStoreWithDriver>[1]

/**
 * How the store contract opens a driver: on a local SQLite file, created if missing. A server's driver
 * maps each path to a database of its own (a schema named after the path, say).
 */
export type DriverFactory = (
  path: string,
  options: { readOnly: boolean },
) => StorageDriver | Promise<StorageDriver>

/**
 * What a database under the contract can do that another cannot. A test that needs a capability the
 * database lacks is reported as skipped under its name, never dropped.
 */
export interface ContractCapabilities {
  /**
   * The database is an SQLite file: the suites open it with better-sqlite3 to inspect, damage or lock it
   * (migration history, FTS5 triggers, corrupt pages, another process's write lock, file handles).
   */
  sqliteFile: boolean
  /** English words are stemmed (FTS5 porter; PostgreSQL's Snowball English stemmer). */
  stemming: boolean
  /** Diacritics are folded (FTS5 unicode61; PostgreSQL's unaccent is missing from PGlite, so it is not used). */
  foldsDiacritics: boolean
}

/** SQLite's capabilities: all of them. */
export const SQLITE_CAPABILITIES: ContractCapabilities = {
  sqliteFile: true,
  stemming: true,
  foldsDiacritics: true,
}

/** What each suite of the contract gets: a temp folder, and stores opened through the driver factory. */
export interface Harness {
  /** The driver's name, for test titles. */
  name: string
  capabilities: ContractCapabilities
  dir: string
  driver: DriverFactory
  /** A new database path in `dir`. */
  path(): string
  /** Opens a store on `path` (a new file by default) through the factory, with store settings if given. */
  open(path?: string, settings?: StoreSettings): Promise<Store>
  /** Opens an existing file read-only through the factory. */
  openReadOnly(path: string): Promise<Store>
  /** Runs one statement on the database at `path` behind the store's back, as another tool would. */
  rawWrite(path: string, sql: string, params?: readonly SqlValue[]): Promise<void>
}

export function harness(
  name: string,
  driver: DriverFactory,
  capabilities: ContractCapabilities = SQLITE_CAPABILITIES,
): Harness {
  const dir = mkdtempSync(join(tmpdir(), `engram-contract-${name.replace(/\W+/g, '-')}-`))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let counter = 0
  const path = () => join(dir, `store-${process.pid}-${++counter}.db`)
  return {
    name,
    capabilities,
    dir,
    driver,
    path,
    open: async (file = path(), settings = {}) =>
      openStoreWithDriver(await driver(file, { readOnly: false }), settings),
    openReadOnly: async (file) => openStoreWithDriver(await driver(file, { readOnly: true })),
    rawWrite: async (file, sql, params = []) => {
      const raw = await driver(file, { readOnly: false })
      try {
        await raw.execute({ sql, params })
      } finally {
        await raw.close()
      }
    },
  }
}

/** Awaits `promise`, expects it to fail with an EngramError of `code`, and returns the error. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<EngramError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EngramError)
  expect((error as EngramError).code).toBe(code)
  return error as EngramError
}

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3')

/**
 * Another process holding the database's write lock, as one in the middle of a long transaction would (a
 * process, not a second connection: POSIX locks do not separate two SQLite libraries in one process).
 * Resolves once the lock is held; call the result to kill the holder, which releases it.
 */
export function holdWriteLock(path: string): Promise<() => Promise<void>> {
  const script = `const Database = require(${JSON.stringify(BETTER_SQLITE3)})
    const db = new Database(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); console.log('LOCKED')
    setTimeout(() => {}, 600000)`
  const holder = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<void>((resolve) => holder.on('close', () => resolve()))
  const release = async () => {
    holder.kill('SIGKILL')
    await exited
  }
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    holder.stderr.on('data', (chunk) => {
      err += chunk
    })
    holder.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('LOCKED')) resolve(release)
    })
    exited.then(() => reject(new Error(`The lock holder exited before taking the lock: ${err}`)))
  })
}
