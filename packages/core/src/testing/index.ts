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
import { type DriverFactory, harness } from './harness.ts'
import { reliabilitySuite } from './reliability.suite.ts'
import { searchSuite } from './search.suite.ts'
import { storeSuite } from './store.suite.ts'
import { viewsSuite } from './views.suite.ts'

export type { DriverFactory } from './harness.ts'

/** Registers the whole store contract (store, search, reliability, views) for the driver `driver` makes. */
export function storeContract(name: string, driver: DriverFactory): void {
  describe(`store contract on ${name}`, () => {
    describe('store', () => storeSuite(harness(name, driver)))
    describe('search', () => searchSuite(harness(name, driver)))
    describe('reliability', () => reliabilitySuite(harness(name, driver)))
    describe('views', () => viewsSuite(harness(name, driver)))
  })
}
