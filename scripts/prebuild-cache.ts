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
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Where a better-sqlite3 package keeps its addon, relative to the package folder (as a prebuild packs it). */
const ADDON = 'build/Release/better_sqlite3.node'

/** The addon of the better-sqlite3 package in `folder`. */
export const addonOf = (folder: string) => join(folder, ADDON)

/** Where prebuild-install, run on `nodeBin` in `folder` (a better-sqlite3 package), looks for a cached prebuild. */
export function cachedPrebuildPath(folder: string, nodeBin: string, env: NodeJS.ProcessEnv): string {
  const probe = `
const pkg = require('better-sqlite3/package.json')
const opts = Object.assign({}, require('prebuild-install/rc')(pkg), { pkg })
const util = require('prebuild-install/util')
process.stdout.write(util.cachedPrebuild(util.getDownloadUrl(opts)))`
  return execFileSync(nodeBin, ['-e', probe], {
    cwd: folder,
    env,
    encoding: 'utf8',
  })
}

/**
 * The better-sqlite3 packages installed in `project` that compiled their addon: the top-level one and those
 * nested under a package that pins another version (the `engram` CLI pins 12.x, which compiles on Node 24
 * beside a top-level 13.x that ships its prebuilds and compiles nothing).
 */
function compiledBetterSqlite3(project: string): string[] {
  const modules = join(project, 'node_modules')
  const owners = readdirSync(modules).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name],
  )
  return [
    join(modules, 'better-sqlite3'),
    ...owners.map((owner) => join(modules, owner, 'node_modules/better-sqlite3')),
  ].filter((folder) => existsSync(addonOf(folder)))
}

/** Packs `folder`'s build/Release/better_sqlite3.node as prebuild-install packs a release, into `cached`. */
export function storePrebuild(folder: string, cached: string): void {
  mkdirSync(dirname(cached), { recursive: true })
  const partial = `${cached}.${process.pid}.tmp`
  execFileSync('tar', ['-czf', partial, ADDON], { cwd: folder })
  renameSync(partial, cached)
}

/**
 * Stores each better-sqlite3 addon `project` has just compiled as prebuild-install's cached prebuild, unless
 * one is cached already. Returns the cache files it wrote.
 */
export function cacheBetterSqlite3Prebuild(
  project: string,
  nodeBin: string,
  env: NodeJS.ProcessEnv,
): string[] {
  const written: string[] = []
  for (const folder of compiledBetterSqlite3(project)) {
    const cached = cachedPrebuildPath(folder, nodeBin, env)
    if (existsSync(cached)) continue
    storePrebuild(folder, cached)
    written.push(cached)
  }
  return written
}
