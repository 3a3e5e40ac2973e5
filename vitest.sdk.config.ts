import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig, mergeConfig } from 'vitest/config'
import workspace from './vitest.config.ts'

/**
 * The SDK-major matrix: the adapter, agent-provider and MCP suites run against the SDK versions installed in
 * ENGRAM_SDK_DIR (a folder outside the workspace, see scripts/sdk-matrix.sh) instead of the workspace's pins.
 * Each SDK name resolves to that folder's copy; what those copies import resolves beside them.
 */
const folder = process.env.ENGRAM_SDK_DIR
if (!folder || !existsSync(join(folder, 'node_modules'))) {
  throw new Error(
    'set ENGRAM_SDK_DIR to a folder where the SDKs are installed (bash scripts/sdk-matrix.sh does)',
  )
}
const SDKS = [
  'ai',
  '@ai-sdk/openai-compatible',
  '@ai-sdk/anthropic',
  '@openai/agents',
  'openai',
  '@anthropic-ai/sdk',
  'better-sqlite3',
]

const merged = mergeConfig(
  workspace,
  defineConfig({
    resolve: {
      alias: SDKS.map((name) => ({
        find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
        replacement: join(folder, 'node_modules', name),
      })),
    },
  }),
)

// mergeConfig concatenates arrays, so the suites are set after it: the workspace's include (or its projects,
// which take precedence over include) would run every test of the workspace against these SDKs.
export default {
  ...merged,
  test: {
    ...merged.test,
    projects: undefined,
    include: [
      'packages/ai-sdk/test/**/*.test.ts',
      'packages/openai-agents/test/**/*.test.ts',
      'packages/agent/test/providers-*.test.ts',
    ],
    // They run the README in a child process, which resolves the workspace's SDKs: the pack-and-install
    // test runs the READMEs against each line's SDKs instead.
    exclude: ['**/readme.test.ts', '**/node_modules/**'],
  },
}
