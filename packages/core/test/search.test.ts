import { describe } from 'vitest'
import { searchConformanceSuite } from './conformance/search.suite.ts'
import { driversUnderTest } from './helpers.ts'

for (const driver of driversUnderTest()) {
  describe(`search on ${driver}`, () => searchConformanceSuite(driver))
}
