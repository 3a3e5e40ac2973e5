import { afterAll, vi } from 'vitest'

/**
 * Test files share their worker's modules and globals (`isolate: false` in vitest.config.ts): whatever a
 * file leaves faked or spied on (a fake clock, a spy on setTimeout) is put back when it ends, so the next
 * file in that worker runs on real timers.
 */
afterAll(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
})
