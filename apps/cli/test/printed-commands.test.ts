import { spawnSync } from 'node:child_process'
import { mkdirSync, symlinkSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { shellWord } from '../src/output.ts'
import { BIN, tempDir } from './helpers.ts'

// Real processes through pnpm and a shell; the machine may be busy.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '')

/** PATH with node, pnpm and the shell, and no `engram`: a fresh clone that was never linked. */
const PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter)
const env = { PATH, HOME: process.env.HOME ?? '/tmp' }

const run = (command: string, args: string[], cwd: string, input = '') =>
  spawnSync(command, args, { cwd, env, input, encoding: 'utf8', timeout: 600_000 })

/** The command between the backticks of "Continue with `…`." */
function continueCommand(stderr: string): string {
  const match = /Continue with `([^`]+)`\./.exec(stderr)
  if (!match) throw new Error(`no command printed:\n${stderr}`)
  return match[1] as string
}

describe('commands the CLI prints run as printed, where the user is', () => {
  it('from a folder outside the clone: node and the launcher, which runs from anywhere', () => {
    const cwd = tempDir()
    const chat = run(process.execPath, [BIN, 'chat', '--db', './talk.db'], cwd, 'remember the port is 5433\n')
    expect(chat.status, chat.stderr).toBe(0)
    const command = continueCommand(chat.stderr)
    expect(command).toBe(`node ${shellWord(BIN)} chat --db ./talk.db --resume latest`)
    const again = run('sh', ['-c', command], cwd, 'Which port?\n')
    expect(again.status, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/Resumed session [0-9a-f]{8} \(4 messages/)

    // The usage hint too.
    const typo = run(process.execPath, [BIN, 'sesions'], cwd)
    expect(typo.status).toBe(2)
    const help = /Run `([^`]+)` for the commands and options\./.exec(typo.stderr)?.[1]
    expect(help).toBe(`node ${shellWord(BIN)} --help`)
    const helped = run('sh', ['-c', help as string], cwd)
    expect(helped.status).toBe(0)
    expect(helped.stdout).toContain('Usage: engram')

    const demo = run(process.execPath, [BIN, 'demo', '--db', join(cwd, 'demo', 'engram.db')], cwd)
    expect(demo.status).toBe(0)
    const explore = /^Explore it: (.+?) {3}· {3}(.+)$/m.exec(demo.stdout)
    expect(explore?.[1]).toBe(
      `node ${shellWord(BIN)} sessions --db ${shellWord(join(cwd, 'demo', 'engram.db'))}`,
    )
    const sessions = run('sh', ['-c', explore?.[1] as string], cwd)
    expect(sessions.status).toBe(0)
    expect(sessions.stdout).toMatch(/^ID +/)
  })

  it('once engram is on PATH (linked or installed): engram', () => {
    const cwd = tempDir()
    const bin = join(cwd, 'bin')
    mkdirSync(bin)
    symlinkSync(BIN, join(bin, 'engram'))
    // No --db: the default database is in the data folder, here the test's own, never the user's.
    const linked = { ...env, PATH: `${bin}${delimiter}${PATH}`, XDG_DATA_HOME: join(cwd, 'data') }
    const chat = spawnSync(process.execPath, [BIN, 'chat'], {
      cwd,
      env: linked,
      input: 'hi\n',
      encoding: 'utf8',
    })
    expect(chat.status, chat.stderr).toBe(0)
    const command = continueCommand(chat.stderr)
    expect(command).toBe('engram chat --resume latest')
    const again = spawnSync('sh', ['-c', command], { cwd, env: linked, input: '', encoding: 'utf8' })
    expect(again.status, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/Resumed session [0-9a-f]{8}/)
  })

  it('in the clone through pnpm: pnpm engram at its top, pnpm --dir <clone> engram from a folder inside', () => {
    const db = join(tempDir(), 'pnpm.db')
    const top = run('pnpm', ['engram', 'chat', '--db', db], ROOT, 'hello\n')
    expect(top.status).toBe(0)
    const command = continueCommand(top.stderr)
    expect(command).toBe(`pnpm engram chat --db ${shellWord(db)} --resume latest`)
    const again = run('sh', ['-c', command], ROOT, '')
    expect(again.status, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/Resumed session [0-9a-f]{8}/)

    const inside = join(ROOT, 'docs')
    mkdirSync(inside, { recursive: true })
    const below = run('pnpm', ['engram', 'chat', '--db', db, '--resume'], inside, 'hello again\n')
    expect(below.status).toBe(0)
    const fromInside = continueCommand(below.stderr)
    expect(fromInside).toBe(`pnpm --dir ${shellWord(ROOT)} engram chat --db ${shellWord(db)} --resume latest`)
    const third = run('sh', ['-c', fromInside], inside, '')
    expect(third.status).toBe(0)
    expect(third.stderr).toMatch(/Resumed session [0-9a-f]{8}/)
  })
})
