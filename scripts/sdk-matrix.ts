/**
 * The SDK-major matrix: installs one Node line's SDK versions (scripts/sdk-lines.ts) with npm into a folder
 * outside the workspace (kept in the CI cache, reinstalled when the versions change), then runs the adapter
 * and provider suites on that line's node with every SDK resolved from that folder (vitest.sdk.config.ts).
 *
 *   pnpm test:sdk --line 24        (ai 7, @openai/agents 0.20, openai 7, better-sqlite3 13 on Node 24)
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { lineArgument, lineRuntime, NODE_LINES } from './sdk-lines.ts'
import { ROOT } from './workspace-packages.ts'

const line = lineArgument(process.argv.slice(2))
const runtime = lineRuntime(line, ROOT)
const folder = join(runtime.cache, `sdk-node${NODE_LINES[line].node}`)
const manifest = JSON.stringify(
  { name: 'engram-sdk-matrix', private: true, type: 'module', dependencies: NODE_LINES[line].peers },
  null,
  2,
)
const manifestPath = join(folder, 'package.json')
if (
  !existsSync(manifestPath) ||
  readFileSync(manifestPath, 'utf8') !== manifest ||
  !existsSync(join(folder, 'node_modules'))
) {
  mkdirSync(folder, { recursive: true })
  writeFileSync(manifestPath, manifest)
  console.log(
    `[sdk-matrix node ${line}] npm install ${Object.entries(NODE_LINES[line].peers)
      .map(([n, v]) => `${n}@${v}`)
      .join(' ')}`,
  )
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: folder,
    env: runtime.env,
    stdio: 'inherit',
  })
}
console.log(`[sdk-matrix node ${line}] the adapter and provider suites against ${folder}`)
execFileSync(
  runtime.nodeBin,
  [
    join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    'vitest.sdk.config.ts',
    ...process.argv.slice(4),
  ],
  { cwd: ROOT, env: { ...runtime.env, ENGRAM_SDK_DIR: folder }, stdio: 'inherit' },
)
