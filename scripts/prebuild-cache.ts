/**
 * better-sqlite3 installs with `prebuild-install || node-gyp rebuild`: a user's machine downloads the
 * prebuilt addon from GitHub and keeps it in npm's cache (`_prebuilds/`); this machine reaches only the npm
 * registry, so the download fails and the addon compiles from source (two to three minutes of sqlite3.c on
 * two cores, on every pack-and-install run). After an install has compiled it, the addon is packed the way
 * prebuild-install packs a release (a gzipped tar of `build/Release/better_sqlite3.node`) and stored under
 * the name prebuild-install looks for in that cache, so the next install on this line finds it as a user's
 * machine finds a prebuild it downloaded before. prebuild-install itself computes the name (its own `rc` and
 * `util`, run on the line's node), so the ABI, platform and version in it are the ones it will ask for.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Where prebuild-install, run on `nodeBin` in `project`, looks for a cached prebuild of better-sqlite3. */
function cachedPrebuildPath(project: string, nodeBin: string, env: NodeJS.ProcessEnv): string {
  const probe = `
const pkg = require('better-sqlite3/package.json')
const opts = Object.assign({}, require('prebuild-install/rc')(pkg), { pkg })
const util = require('prebuild-install/util')
process.stdout.write(util.cachedPrebuild(util.getDownloadUrl(opts)))`
  return execFileSync(nodeBin, ['-e', probe], {
    cwd: join(project, 'node_modules/better-sqlite3'),
    env,
    encoding: 'utf8',
  })
}

/**
 * Stores the better-sqlite3 addon `project` has just installed as prebuild-install's cached prebuild, unless
 * one is cached already. Returns the cache file when it wrote one.
 */
export function cacheBetterSqlite3Prebuild(
  project: string,
  nodeBin: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const folder = join(project, 'node_modules/better-sqlite3')
  if (!existsSync(join(folder, 'build/Release/better_sqlite3.node'))) return undefined
  const cached = cachedPrebuildPath(project, nodeBin, env)
  if (existsSync(cached)) return undefined
  mkdirSync(dirname(cached), { recursive: true })
  const partial = `${cached}.${process.pid}.tmp`
  execFileSync('tar', ['-czf', partial, 'build/Release/better_sqlite3.node'], { cwd: folder })
  execFileSync('mv', ['-f', partial, cached])
  return cached
}
