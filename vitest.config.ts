import { defaultServerConditions } from 'vite'
import { configDefaults, defineConfig } from 'vitest/config'

// `engram-source` makes @engram/* resolve to their TypeScript sources, so tests need no build.
const conditions = ['engram-source', ...defaultServerConditions]

/**
 * LangGraph's checkpointer validation suite (@langchain/langgraph-checkpoint-validation) is written against
 * vitest's globals (describe, it, expect without imports): its files run in a project of their own with
 * `globals: true`; every other test file imports what it uses.
 */
const LANGGRAPH_VALIDATION = 'packages/langgraph/test/validation/**/*.test.ts'

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['engram-source'] } },
  test: {
    // Vitest leaves a core free by default, which on a 2-core machine means one file at a time; most of the
    // suite waits on child processes, servers and a browser, so two files at a time nearly halves it.
    maxWorkers: 2,
    // Every package built once before the tests (dist/ is what the tests' child processes run).
    globalSetup: ['./vitest.build.ts'],
    // drizzle-orm through vitest's module runner, as our sources are, instead of Node's loader: Node 24
    // re-parses a package's package.json (drizzle-orm's is 180 KB) for every module of it that it resolves,
    // which made importing the store 0.5 s slower per test file than on Node 20 (a quarter of the import
    // time). The code is the same; the child processes and the pack test load it through Node.
    server: { deps: { inline: ['drizzle-orm'] } },
    // Ten times the quiet duration of the slowest tests (child processes killed and restarted, servers, a
    // browser, a build: up to ~60 s on a quiet 2-core machine), so a shared, loaded CI machine does not fail
    // them by the clock. One place: test files set no timeout of their own below this one.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'engram',
          include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, LANGGRAPH_VALIDATION],
        },
      },
      {
        extends: true,
        test: { name: 'langgraph-validation', include: [LANGGRAPH_VALIDATION], globals: true },
      },
    ],
  },
})
