import { readdirSync, readFileSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type Child, exitWithin, killIfRunning, waitForLine } from '../../core/test/processes/spawn.ts'
import { MemoryFiles } from '../src/index.ts'
import { countChars, parseText } from '../src/memory/format.ts'
import { spawnAgentScript } from './agent-helpers.ts'
import { memoryConfig, runKillingWriters, tempDir } from './memory-helpers.ts'

const WORKERS = 8
const ENTRIES_PER_WORKER = 40
/** Workers killed with SIGKILL, and after how many finished writes (acknowledged or refused) of their own. */
const KILL_AFTER = new Map([
  [1, 2],
  [4, 5],
  [6, 9],
])
const LIMIT = 2_200

const dir = tempDir('engram-memory-processes-')

const spawnWriter = (folder: string, worker: number) =>
  spawnAgentScript('memory-writer.ts', [folder, String(LIMIT), String(worker), String(ENTRIES_PER_WORKER)])

/** Kills a writer stopped between its temp file and its rename: it leaves the lock and the temp file behind. */
async function killMidWrite(folder: string): Promise<void> {
  const staller = spawnAgentScript('memory-staller.ts', [folder])
  try {
    await waitForLine(staller, (line) => line === 'stalled', 600_000)
    staller.proc.kill('SIGKILL')
    expect((await exitWithin(staller, 600_000)).signal).toBe('SIGKILL')
  } finally {
    killIfRunning(staller)
  }
  const left = readdirSync(folder)
  expect(left).toContain('MEMORY.md.lock')
  expect(left.some((name) => name.endsWith('.tmp'))).toBe(true)
  expect(left).not.toContain('MEMORY.md')
}

const acknowledged = (child: Child) =>
  child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('ack '))
    .map((line) => line.slice(4))

describe('memory files under concurrent processes', () => {
  it('a live writer stalled past the stale time keeps its lock; once it is killed, the next writer takes over', async () => {
    const folder = join(dir, 'stalled')
    const staller = spawnAgentScript('memory-staller.ts', [folder])
    try {
      await waitForLine(staller, (line) => line === 'stalled', 600_000)
      // the staller's thread is blocked, so its lock ages: as if it had stalled for 20 s
      const old = new Date(Date.now() - 20_000)
      utimesSync(join(folder, 'MEMORY.md.lock'), old, old)
      const memory = new MemoryFiles({ ...memoryConfig(dir), memoryPath: join(folder, 'MEMORY.md') })
      let settled = false
      const write = memory.apply('memory', [{ action: 'add', content: 'after the staller' }]).finally(() => {
        settled = true
      })
      // the writer keeps asking for the lock (proper-lockfile retries) and never takes it while the staller lives
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(settled).toBe(false)
      expect(readdirSync(folder)).not.toContain('MEMORY.md')
      staller.proc.kill('SIGKILL')
      expect((await exitWithin(staller, 600_000)).signal).toBe('SIGKILL')
      expect((await write).changed).toBe(true)
      expect(parseText(readFileSync(join(folder, 'MEMORY.md'), 'utf8'))).toEqual({
        ok: true,
        entries: ['after the staller'],
      })
      expect(readdirSync(folder)).toEqual(['MEMORY.md'])
    } finally {
      killIfRunning(staller)
    }
  })

  it('a writer killed before its rename, then 8 writers of which 3 are killed with SIGKILL, lose no acknowledged entry and never tear the file or pass the cap', async () => {
    const folder = join(dir, 'shared')
    await killMidWrite(folder)
    const children = Array.from({ length: WORKERS }, (_, worker) => spawnWriter(folder, worker))
    await runKillingWriters(children, KILL_AFTER, 600_000)

    const acks = children.flatMap(acknowledged)
    const full = children.flatMap((child) =>
      child
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('full ')),
    )
    const text = readFileSync(join(folder, 'MEMORY.md'), 'utf8')
    const parsed = parseText(text)
    if (!parsed.ok) throw new Error(`torn file: ${parsed.reason}`)
    const missing = acks.filter((entry) => !parsed.entries.includes(entry))
    console.log(
      `memory processes: ${acks.length} acknowledged writes, ${full.length} refused at the cap, ${parsed.entries.length} entries on disk, ${countChars(parsed.entries.join('\n§\n'))}/${LIMIT} chars`,
    )
    expect(acks.length).toBeGreaterThan(20)
    expect(full.length).toBeGreaterThan(0)
    expect(missing).toEqual([])
    expect(new Set(parsed.entries).size).toBe(parsed.entries.length)
    expect(parsed.entries.every((entry) => /^worker \d entry \d+: 用户喜欢简洁的回答$/.test(entry))).toBe(
      true,
    )
    expect(countChars(parsed.entries.join('\n§\n'))).toBeLessThanOrEqual(LIMIT)

    // Whatever the killed writers left behind (a stale lock, a temp file) does not stop the next writer.
    const memory = new MemoryFiles({ ...memoryConfig(dir), memoryPath: join(folder, 'MEMORY.md') })
    await memory.apply('memory', [{ action: 'remove', old_text: parsed.entries[0] as string }])
    expect(readdirSync(folder).filter((name) => name !== 'MEMORY.md')).toEqual([])
  })
})
