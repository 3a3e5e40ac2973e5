import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Vitest's global setup: builds every package once before any test file runs (turbo; a cache hit when
 * nothing changed), so the tests that start the `engram` binary as a child process run dist/ as a user's
 * install does. The build loads in a fraction of the time the TypeScript sources take through tsx, which
 * keeps those children quick on a loaded machine, and no test runs while dist/ is being written.
 *
 * The build runs with only what it needs from the environment: the variables turbo hashes (turbo.json's
 * globalEnv) vary between the suites (the SDK matrix sets ENGRAM_SDK_DIR) and must not turn a cache hit into
 * a rebuild; dist/ does not depend on them.
 */
export default function buildOnce(): void {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'PATH' || key === 'HOME' || key === 'TMPDIR' || key.startsWith('npm_config_'))
      env[key] = value
  }
  // One build at a time on this machine (a flock in the temp folder, util-linux): two vitest runs in one
  // clone would write one dist/ at once; runs in other clones only wait their turn.
  try {
    execFileSync('flock', [join(tmpdir(), 'engram-test-build.lock'), 'pnpm', 'build'], {
      cwd: import.meta.dirname,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer }
    throw new Error(`pnpm build failed before the tests:\n${stdout ?? ''}\n${stderr ?? ''}`)
  }
}
