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
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
