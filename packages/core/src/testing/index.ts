/**
 * `@engram/core/testing`: the store contract as vitest suites, for any StorageDriver. Call it at the top
 * level of a test file:
 *
 *   storeContract('my-driver', (path, { readOnly }) => myDriver(path, { readOnly }))
 *
 * The factory opens a driver on a local SQLite file (created if missing); the suites inspect and damage
 * those files with better-sqlite3 and hold write locks from a child process. Needs `vitest` and
 * `better-sqlite3` (optional peer dependencies of @engram/core).
 */
import { describe } from 'vitest'
import { type ContractCapabilities, type DriverFactory, harness, SQLITE_CAPABILITIES } from './harness.ts'
import { reliabilitySuite } from './reliability.suite.ts'
import { searchSuite } from './search.suite.ts'
import { storeSuite } from './store.suite.ts'
import { viewsSuite } from './views.suite.ts'

export type { ContractCapabilities, DriverFactory } from './harness.ts'

/** What PostgreSQL cannot do that the contract tests on SQLite (see ContractCapabilities). */
export const POSTGRES_CAPABILITIES: Partial<ContractCapabilities> = {
  sqliteFile: false,
  foldsDiacritics: false,
}

/**
 * Registers the whole store contract (store, search, reliability, views) for the driver `driver` makes. Name
 * what the database cannot do in `capabilities` (default: SQLite's, all of them); the tests that need it
 * are reported as skipped.
 */
export function storeContract(
  name: string,
  driver: DriverFactory,
  capabilities: Partial<ContractCapabilities> = {},
): void {
  const can = { ...SQLITE_CAPABILITIES, ...capabilities }
  describe(`store contract on ${name}`, () => {
    describe('store', () => storeSuite(harness(name, driver, can)))
    describe('search', () => searchSuite(harness(name, driver, can)))
    describe('reliability', () => reliabilitySuite(harness(name, driver, can)))
    describe('views', () => viewsSuite(harness(name, driver, can)))
  })
}
