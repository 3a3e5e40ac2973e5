import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

// `engram-source` makes @engram/* resolve to their TypeScript sources, so tests need no build.
const conditions = ['engram-source', ...defaultServerConditions]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['engram-source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
