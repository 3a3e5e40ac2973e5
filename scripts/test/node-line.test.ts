import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { spawnProcess } from '../../packages/core/test/processes/spawn.ts'
import { ROOT } from '../workspace-packages.ts'

const work = mkdtempSync(join(tmpdir(), 'engram-node-line-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const AT_THE_LOCK = 'flock: waiting'

// CI's line suites and pack-and-install tests ask for the same Node build at once on an empty cache. A
// second caller must wait for the first one's fetch and reuse it: fetching again replaced the first one's
// finished folder (rm -rf, then mv) while a suite was starting its node (ENOENT in CI).
it('a second caller waits for the fetch under way and reuses its build instead of fetching again', async () => {
  const cache = join(work, 'cache')
  const fakes = join(work, 'bin')
  mkdirSync(join(cache, 'node'), { recursive: true })
  mkdirSync(fakes)
  const npmLog = join(work, 'npm.log')
  // npm records any fetch (and fails it: this test never downloads); flock says on stderr that the script
  // reached the lock.
  writeFileSync(join(fakes, 'npm'), `#!/bin/sh\necho "npm $*" >> '${npmLog}'\nexit 1\n`)
  writeFileSync(join(fakes, 'flock'), `#!/bin/sh\necho '${AT_THE_LOCK}' >&2\nexec /usr/bin/flock "$@"\n`)
  chmodSync(join(fakes, 'npm'), 0o755)
  chmodSync(join(fakes, 'flock'), 0o755)

  // The first caller, fetching: it holds the version's lock until its standard input closes.
  const lock = join(cache, 'node', '.fetch-24.22.3.lock')
  const first = spawn('/usr/bin/flock', [lock, '-c', 'echo held; cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  await once(first.stdout, 'data')

  const second = spawnProcess('bash', [join(ROOT, 'scripts/node-line.sh'), '24.22.3'], {
    PATH: `${fakes}:${process.env.PATH}`,
    ENGRAM_CI_CACHE: cache,
  })
  // Either it waits at the lock, or (without one) it fetches at once and exits.
  const atTheLock = new Promise<void>((resolve) => {
    const check = () => second.stderr().includes(AT_THE_LOCK) && resolve()
    second.proc.stderr?.on('data', check)
    check()
  })
  await Promise.race([atTheLock, second.exited])
  expect(existsSync(npmLog) ? readFileSync(npmLog, 'utf8') : '', second.describe()).toBe('')
  expect(second.stderr(), second.describe()).toContain(AT_THE_LOCK)

  // The first caller finishes its build, then releases the lock.
  const dir = join(cache, 'node', '24.22.3')
  mkdirSync(join(dir, 'bin'), { recursive: true })
  writeFileSync(join(dir, 'bin', 'node'), '#!/bin/sh\necho v24.22.3\n')
  chmodSync(join(dir, 'bin', 'node'), 0o755)
  first.stdin.end()

  const exit = await second.exited
  expect({ exit: exit.code, out: second.stdout().trim(), err: second.stderr() }).toEqual({
    exit: 0,
    out: dir,
    err: `${AT_THE_LOCK}\n`,
  })
  expect(existsSync(npmLog)).toBe(false)
})
