/**
 * The suites CI runs on the Node lines other than the one `pnpm check` runs on: the store contract on every
 * driver (better-sqlite3, libSQL, PostgreSQL, PGlite), the adapters (LangGraph's validation suite too), MCP and a CLI smoke run, on that line's
 * node with the workspace's dependencies.
 *
 *   pnpm test:line --line 20
 *
 * better-sqlite3 is the one native addon built for one Node ABI. Its build for this line is compiled once
 * into the CI cache (a copy of the package, never the workspace's files, which pnpm hard-links to its
 * store) and put in place by renaming, so the workspace's own build is moved aside untouched and moved back
 * afterwards.
 */
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
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

/** The workspace's better-sqlite3 package folders (one per installed version). */
function betterSqlite3Folders(): string[] {
  const store = join(ROOT, 'node_modules/.pnpm')
  return readdirSync(store)
    .filter((name) => name.startsWith('better-sqlite3@'))
    .map((name) => join(store, name, 'node_modules/better-sqlite3'))
    .filter((folder) => existsSync(join(folder, 'build/Release/better_sqlite3.node')))
}

/** better_sqlite3.node of `folder`'s version built for the line's ABI, compiled once into the cache. */
function addonFor(folder: string, runtime: LineRuntime): string {
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }
  const abi = execFileSync(runtime.nodeBin, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim()
  const copy = join(runtime.cache, 'addons', `better-sqlite3-${version}-abi${abi}`)
  const built = join(copy, 'build/Release/better_sqlite3.node')
  if (existsSync(built)) return built
  rmSync(copy, { recursive: true, force: true })
  mkdirSync(dirname(copy), { recursive: true })
  cpSync(folder, copy, {
    recursive: true,
    dereference: true,
    filter: (path) => !path.startsWith(join(folder, 'build')),
  })
  // npm ships node-gyp; it builds against the line's headers (npm_config_nodedir), nothing is downloaded.
  const npm = realpathSync(execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())
  const nodeGyp = createRequire(npm).resolve('node-gyp/bin/node-gyp.js')
  console.log(`[line-suites] compiling better-sqlite3 ${version} for ABI ${abi} into ${copy}`)
  execFileSync(runtime.nodeBin, [nodeGyp, 'rebuild', '--release', `--nodedir=${runtime.nodeDir}`], {
    cwd: copy,
    env: runtime.env,
    stdio: 'inherit',
  })
  return built
}

/** Whether the line's node loads the addon as it is (the workspace was installed with this line's ABI). */
function loads(addon: string, runtime: LineRuntime): boolean {
  try {
    execFileSync(runtime.nodeBin, ['-e', `process.dlopen({ exports: {} }, ${JSON.stringify(addon)})`], {
      stdio: 'ignore',
    })
    return true
  } catch {
    return false
  }
}

/** Puts the line's build in place of each folder's (unless it loads already); returns how to put the workspace's back. */
function swapAddons(runtime: LineRuntime): () => void {
  const restores: (() => void)[] = []
  for (const folder of betterSqlite3Folders()) {
    const target = join(folder, 'build/Release/better_sqlite3.node')
    if (loads(target, runtime)) continue
    const aside = `${target}.workspace`
    const addon = addonFor(folder, runtime)
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
  execFileSync(runtime.nodeBin, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...lineFiles()], {
    cwd: ROOT,
    env: runtime.env,
    stdio: 'inherit',
  })
} finally {
  restore()
}
