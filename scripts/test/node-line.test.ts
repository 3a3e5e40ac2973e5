import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ROOT } from '../workspace-packages.ts'

const work = mkdtempSync(join(tmpdir(), 'engram-node-line-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Resolves once `done()` holds, looking again every 20 ms (the test's time limit bounds the wait). */
async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20))
}

// CI's line suites and pack-and-install tests ask for the same Node build at once on an empty cache. A
// second caller must wait for the first one's fetch and reuse it: fetching again replaced the first one's
// finished folder (rm -rf, then mv) while a suite was starting its node (ENOENT in CI).
it('a second caller waits for the fetch under way and reuses its build instead of fetching again', async () => {
  const cache = join(work, 'cache')
  const fakes = join(work, 'bin')
  mkdirSync(join(cache, 'node'), { recursive: true })
  mkdirSync(fakes)
  const npmLog = join(work, 'npm.log')
  const waiting = join(work, 'waiting')
  // npm records any fetch (and fails it: this test never downloads); flock marks that the script reached the lock.
  writeFileSync(join(fakes, 'npm'), `#!/bin/sh\necho "npm $*" >> '${npmLog}'\nexit 1\n`)
  writeFileSync(join(fakes, 'flock'), `#!/bin/sh\ntouch '${waiting}'\nexec /usr/bin/flock "$@"\n`)
  chmodSync(join(fakes, 'npm'), 0o755)
  chmodSync(join(fakes, 'flock'), 0o755)

  // The first caller, fetching: it holds the version's lock until its standard input closes.
  const lock = join(cache, 'node', '.fetch-24.22.3.lock')
  const first = spawn('/usr/bin/flock', [lock, '-c', 'echo held; cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let firstOut = ''
  first.stdout.on('data', (chunk) => {
    firstOut += chunk
  })
  await waitFor(() => firstOut.includes('held'))

  const second = spawn('bash', [join(ROOT, 'scripts/node-line.sh'), '24.22.3'], {
    env: { ...process.env, PATH: `${fakes}:${process.env.PATH}`, ENGRAM_CI_CACHE: cache },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  let exit: number | null | undefined
  second.stdout.on('data', (chunk) => {
    out += chunk
  })
  second.stderr.on('data', (chunk) => {
    err += chunk
  })
  second.on('exit', (code) => {
    exit = code
  })
  // Either it waits at the lock, or (without one) it fetches at once, or it exits.
  await waitFor(() => existsSync(waiting) || existsSync(npmLog) || exit !== undefined)
  expect(existsSync(npmLog) ? readFileSync(npmLog, 'utf8') : '', err).toBe('')
  expect(existsSync(waiting), `${out}${err}`).toBe(true)

  // The first caller finishes its build, then releases the lock.
  const dir = join(cache, 'node', '24.22.3')
  mkdirSync(join(dir, 'bin'), { recursive: true })
  writeFileSync(join(dir, 'bin', 'node'), '#!/bin/sh\necho v24.22.3\n')
  chmodSync(join(dir, 'bin', 'node'), 0o755)
  first.stdin.end()

  await waitFor(() => exit !== undefined)
  expect({ exit, out: out.trim(), err }).toEqual({ exit: 0, out: dir, err: '' })
  expect(existsSync(npmLog)).toBe(false)
})
