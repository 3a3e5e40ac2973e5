import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cleanEnv, tempDir } from './helpers.ts'

const APP = fileURLToPath(new URL('../', import.meta.url))

/**
 * A copy of the app's launcher beside a dist/ caught half rewritten by `pnpm build` (main.mjs there, the
 * chunk it imports not yet), with the real sources linked in or, as a published install has it, none.
 */
function halfBuilt(withSources: boolean): string {
  const root = tempDir('engram-launcher-')
  mkdirSync(join(root, 'bin'))
  mkdirSync(join(root, 'dist'))
  for (const file of ['engram.js', 'source-conditions.mjs'])
    copyFileSync(join(APP, 'bin', file), join(root, 'bin', file))
  copyFileSync(join(APP, 'package.json'), join(root, 'package.json'))
  writeFileSync(join(root, 'dist', 'main.mjs'), "import { main } from './main-Dx3k9a.mjs'\nexport { main }\n")
  symlinkSync(join(APP, 'node_modules'), join(root, 'node_modules'))
  if (withSources) symlinkSync(join(APP, 'src'), join(root, 'src'))
  return root
}

const run = (root: string, args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'engram.js'), ...args], {
    cwd: root,
    env: cleanEnv(),
    encoding: 'utf8',
    timeout: 600_000,
  })

describe('the launcher while dist/ is rebuilt', () => {
  it('runs the sources and says why, when the build cannot be loaded', () => {
    const root = halfBuilt(true)
    const result = run(root, ['--version'])
    expect(result.stderr).toMatch(
      /^engram: the build in .*\/dist\/ is incomplete \(Cannot find module '.*main-Dx3k9a\.mjs'.*\); it is probably being rebuilt\. Running from the TypeScript sources instead\.\n$/,
    )
    expect(result.stdout).toBe('0.1.0\n')
    expect(result.status).toBe(0)
  })

  it('says what happened and what to do, without a stack, when there are no sources to fall back to', () => {
    const root = halfBuilt(false)
    const result = run(root, ['--version'])
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(
      /^engram: the build in .*\/dist\/ is incomplete \(Cannot find module '.*main-Dx3k9a\.mjs'.*\)\. Wait for a running `pnpm build` to finish, or reinstall engram\.\n$/,
    )
    expect(result.stderr).not.toContain('    at ')
  })
})
