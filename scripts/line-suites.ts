/**
 * The suites CI runs on the Node lines other than the one `pnpm check` runs on: the store contract on every
 * driver (better-sqlite3, libSQL, PostgreSQL, PGlite), the adapters (LangGraph's validation suite too), MCP and a CLI smoke run, on that line's
 * node with the workspace's dependencies.
 *
 *   pnpm test:line --line 20
 *
 * better-sqlite3 is the one native addon built for one Node ABI. Its build for this line (compiled once into
 * the CI cache by scripts/addon-builds.ts, never into the workspace's files, which pnpm hard-links to its
 * store) is put in place by renaming, so the workspace's own build is moved aside untouched and moved back
 * afterwards.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { addonFolder, betterSqlite3Folders, loads } from './addon-builds.ts'
import { addonOf } from './prebuild-cache.ts'
import { type LineRuntime, lineArgument, lineRuntime } from './sdk-lines.ts'
import { ROOT } from './workspace-packages.ts'

const LINE_SUITES = [
  'packages/core/test/store.test.ts',
  'packages/core/test/pglite.test.ts',
  'packages/core/test/postgres.test.ts',
  'packages/openai-agents/test',
  'packages/ai-sdk/test',
  'packages/langgraph/test',
  'packages/mcp/test',
  'apps/cli/test/commands.test.ts',
]

/**
 * Left to the Node 24 run of `pnpm check`: load, crash and property tests of those folders. They test the
 * store's and the servers' behaviour under many processes and SIGKILLs, which no Node line changes, and they
 * cost half of a line's time (about 150 s of its 280). What a line can break (the addon, the SDKs, fetch, the
 * MCP transports, child processes, the validation suites) still runs on every line.
 */
const LINE_EXCLUDED = [
  'packages/mcp/test/http-load.test.ts',
  'packages/mcp/test/many-clients.test.ts',
  'packages/langgraph/test/agent.test.ts',
  'packages/langgraph/test/saver-processes.test.ts',
  'packages/langgraph/test/saver-filter-properties.test.ts',
  'packages/openai-agents/test/agents-crash.test.ts',
  'packages/openai-agents/test/session-concurrency.test.ts',
  'packages/ai-sdk/test/chat-writers.test.ts',
]

/**
 * The test files of LINE_SUITES (folders walked for `*.test.ts`) without LINE_EXCLUDED, as vitest filters
 * (vitest's own --exclude does not reach the files of a project).
 */
function lineFiles(): string[] {
  const files = LINE_SUITES.flatMap((suite) =>
    suite.endsWith('.test.ts')
      ? [suite]
      : readdirSync(join(ROOT, suite), { recursive: true, encoding: 'utf8' })
          .filter((name) => name.endsWith('.test.ts'))
          .map((name) => `${suite}/${name}`),
  )
  const missing = LINE_EXCLUDED.filter((file) => !files.includes(file))
  if (missing.length > 0) throw new Error(`LINE_EXCLUDED names files no suite holds: ${missing.join(', ')}`)
  return files.filter((file) => !LINE_EXCLUDED.includes(file)).sort()
}

/** Puts the line's build in place of each folder's (unless it loads already); returns how to put the workspace's back. */
function swapAddons(runtime: LineRuntime): () => void {
  const restores: (() => void)[] = []
  for (const folder of betterSqlite3Folders()) {
    const target = addonOf(folder)
    if (loads(target, runtime)) continue
    const aside = `${target}.workspace`
    const addon = addonOf(addonFolder(folder, runtime))
    renameSync(target, aside)
    cpSync(addon, target)
    restores.push(() => renameSync(aside, target))
  }
  return () => {
    for (const restore of restores) restore()
  }
}

const line = lineArgument(process.argv.slice(2))
const runtime = lineRuntime(line, ROOT)
const restore = swapAddons(runtime)
try {
  console.log(`[line ${line}] ${LINE_SUITES.join(' ')}, without ${LINE_EXCLUDED.join(' ')}`)
  // One module graph per worker instead of one per file (--no-isolate): the adapters' SDKs are imported
  // once per worker, not once per file (Node 20: 115 s → 79 s, CPU 208 s → 139 s for these files). Not for
  // the whole `pnpm check`: there store-model.test.ts (not among these) did not finish in a worker that
  // had run other files first (it passes alone; the cause is not found yet).
  execFileSync(
    runtime.nodeBin,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--no-isolate', ...lineFiles()],
    {
      cwd: ROOT,
      env: runtime.env,
      stdio: 'inherit',
    },
  )
} finally {
  restore()
}
