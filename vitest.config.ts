import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

// `engram-source` makes @engram/* resolve to their TypeScript sources, so tests need no build.
const conditions = ['engram-source', ...defaultServerConditions]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['engram-source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    // Vitest leaves a core free by default, which on a 2-core machine means one file at a time; most of the
    // suite waits on child processes, servers and a browser, so two files at a time nearly halves it.
    maxWorkers: 2,
    // Ten times the quiet duration of the slow tests (child processes, servers, a browser: up to ~12 s each on
    // a quiet 2-core machine), so a shared, loaded CI machine does not fail them by the clock.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
