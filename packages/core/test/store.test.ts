import { describe } from 'vitest'
import { reliabilitySuite } from './conformance/reliability.suite.ts'
import { storeConformanceSuite } from './conformance/store.suite.ts'
import { driversUnderTest } from './helpers.ts'

for (const driver of driversUnderTest()) {
  describe(`store on ${driver}`, () => storeConformanceSuite(driver))
  describe(`reliability on ${driver}`, () => reliabilitySuite(driver))
}
