/**
 * better-sqlite3 is the one native addon, built for one Node ABI. This machine reaches only the npm
 * registry, so every build of it for another line compiles sqlite3.c (about 100 s of one core). One place
 * keeps one build per version and ABI, which the line suites, the pack-and-install tests and CI share:
 *
 *   pnpm exec tsx scripts/addon-builds.ts --line 20 --line 22 --line 24
 *
 * compiles what is missing into the CI cache (the workspace's own build is used where it loads on the line)
 * and puts each build where prebuild-install looks for a prebuild it downloaded before (npm's cache,
 * `_prebuilds/`), so a plain `npm install` of that version on that line finds it as a user's machine finds
 * the prebuild it downloads from GitHub. CI runs it once, beside `pnpm check`, before the suites that need it.
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
import { addonOf, cachedPrebuildPath, storePrebuild } from './prebuild-cache.ts'
import { type LineName, type LineRuntime, lineRuntime, NODE_LINES } from './sdk-lines.ts'
import { ROOT } from './workspace-packages.ts'

/** The workspace's better-sqlite3 package folders (one per installed version). */
export function betterSqlite3Folders(): string[] {
  const store = join(ROOT, 'node_modules/.pnpm')
  return readdirSync(store)
    .filter((name) => name.startsWith('better-sqlite3@'))
    .map((name) => join(store, name, 'node_modules/better-sqlite3'))
    .filter((folder) => existsSync(addonOf(folder)))
}

/** Whether the line's node loads `addon` as it is. */
export function loads(addon: string, runtime: LineRuntime): boolean {
  try {
    execFileSync(runtime.nodeBin, ['-e', `process.dlopen({ exports: {} }, ${JSON.stringify(addon)})`], {
      stdio: 'ignore',
    })
    return true
  } catch {
    return false
  }
}

/**
 * A package folder of `folder`'s better-sqlite3 version whose build/Release holds the addon for the line's
 * ABI: `folder` itself when its build loads on the line, else a copy in the cache, compiled once. A compile
 * goes to a folder of its own and is renamed into place when it is whole, so two callers at once never see
 * half a build (the second one's work is then thrown away).
 */
export function addonFolder(folder: string, runtime: LineRuntime): string {
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }
  const abi = execFileSync(runtime.nodeBin, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim()
  const copy = join(runtime.cache, 'addons', `better-sqlite3-${version}-abi${abi}`)
  if (existsSync(addonOf(copy))) return copy
  // Checked after the cache: the line suites swap the workspace's addon while they run.
  if (loads(addonOf(folder), runtime)) return folder
  const work = `${copy}.${process.pid}.tmp`
  rmSync(work, { recursive: true, force: true })
  mkdirSync(dirname(copy), { recursive: true })
  cpSync(folder, work, {
    recursive: true,
    dereference: true,
    filter: (path) => !path.startsWith(join(folder, 'build')),
  })
  // npm ships node-gyp; it builds against the line's headers (npm_config_nodedir), nothing is downloaded.
  const npm = realpathSync(execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())
  const nodeGyp = createRequire(npm).resolve('node-gyp/bin/node-gyp.js')
  console.log(`[addon-builds] compiling better-sqlite3 ${version} for ABI ${abi} into ${copy}`)
  execFileSync(runtime.nodeBin, [nodeGyp, 'rebuild', '--release', `--nodedir=${runtime.nodeDir}`], {
    cwd: work,
    env: runtime.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (existsSync(addonOf(copy))) rmSync(work, { recursive: true, force: true })
  else renameSync(work, copy)
  return copy
}

/**
 * Makes every workspace better-sqlite3 version a cached prebuild for the line (compiling what is missing);
 * returns the cache files it wrote.
 */
export function seedPrebuilds(runtime: LineRuntime): string[] {
  const written: string[] = []
  for (const folder of betterSqlite3Folders()) {
    const cached = cachedPrebuildPath(folder, runtime.nodeBin, runtime.env)
    if (existsSync(cached)) continue
    storePrebuild(addonFolder(folder, runtime), cached)
    written.push(cached)
  }
  return written
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(import.meta.filename)) {
  const args = process.argv.slice(2)
  const lines = args.flatMap((arg, i) => (args[i - 1] === '--line' ? [arg] : []))
  if (lines.length === 0 || lines.some((line) => !(line in NODE_LINES))) {
    throw new Error(
      `name the Node lines: --line ${Object.keys(NODE_LINES).join(' --line ')} (got ${args.join(' ')})`,
    )
  }
  for (const line of lines as LineName[]) {
    for (const cached of seedPrebuilds(lineRuntime(line, ROOT))) {
      console.log(`[addon-builds] Node ${line}: ${cached}`)
    }
  }
}
