import { execFile, execFileSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, expect, it } from 'vitest'
import { tempDir } from './helpers.ts'

/**
 * Packs @engram/core and @engram/compressor as they would be published, installs the tarballs with plain
 * npm into a project outside the workspace, and uses them from there. better-sqlite3 is linked from the
 * workspace rather than installed: its install downloads or compiles a native binary (minutes, and a
 * network dependency), which is not what this test is about; the pure-JS dependencies come from npm
 * (its cache first).
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const packages = ['core', 'compressor'].map((name) => join(REPO, 'packages', name))
const project = tempDir('engram-pack-')
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 })

beforeAll(async () => {
  const tarballs = join(project, 'tarballs')
  mkdirSync(tarballs)
  const tsdown = join(REPO, 'node_modules', '.bin', 'tsdown')
  await Promise.all(
    packages.map(async (dir) => {
      await promisify(execFile)(tsdown, ['--log-level', 'error'], { cwd: dir, timeout: 600_000 })
      await promisify(execFile)('pnpm', ['pack', '--pack-destination', tarballs], {
        cwd: dir,
        timeout: 600_000,
      })
    }),
  )
  const app = join(project, 'app')
  mkdirSync(app)
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'engram-pack-app', private: true, type: 'module' }),
  )
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      ...readdirSync(tarballs).map((file) => join(tarballs, file)),
    ],
    app,
  )
  const betterSqlite3 = realpathSync(
    join(createRequire(join(REPO, 'packages', 'core', 'package.json')).resolve('better-sqlite3'), '../..'),
  )
  symlinkSync(betterSqlite3, join(app, 'node_modules', 'better-sqlite3'), 'dir')
  cpSync(fileURLToPath(new URL('./pack/', import.meta.url)), app, { recursive: true })
})

it('opens, migrates, appends, restores, searches (Chinese too) and compresses from the installed tarballs', () => {
  const output = JSON.parse(run(process.execPath, ['app.mjs'], join(project, 'app')))
  expect(output).toEqual({
    restored: 25,
    firstContent: '第0步：部署后端服务 and check module0',
    english: 2,
    chinese: 10,
    compressed: 'compressed',
    childMessages: expect.any(Number),
    lineage: 2,
  })
  expect(output.childMessages).toBeLessThan(25)
})

it('loads @engram/compressor without drizzle or any SQLite driver', () => {
  const output = JSON.parse(run(process.execPath, ['pure.mjs'], join(project, 'app')))
  expect(output.status).toBe('compressed')
  expect(output.messages).toBeLessThan(21)
})

it('publishes exports without the workspace-only engram-source condition, with drizzle-orm as a peer', () => {
  for (const name of ['core', 'compressor']) {
    const manifest = readFileSync(
      join(project, 'app', 'node_modules', '@engram', name, 'package.json'),
      'utf8',
    )
    expect(manifest).not.toContain('engram-source')
    expect(JSON.parse(manifest).exports['.'].import).toBe('./dist/entry/index.mjs')
  }
  const core = JSON.parse(
    readFileSync(join(project, 'app', 'node_modules', '@engram', 'core', 'package.json'), 'utf8'),
  )
  expect(core.peerDependencies['drizzle-orm']).toBeDefined()
  expect(core.dependencies['drizzle-orm']).toBeUndefined()
})
