import { join } from 'node:path'
import { openStore } from '@engram/core'
import { describe, expect, it } from 'vitest'
import type { Child } from '../../core/test/processes/spawn.ts'
import { CLAUDE_MEMORY_SOURCE, createClaudeMemoryHandlers } from '../src/claude-memory/index.ts'
import { MemoryFiles } from '../src/index.ts'
import { countChars } from '../src/memory/format.ts'
import { spawnAgentScript } from './agent-helpers.ts'
import { memoryConfig, runKillingWriters, tempDir } from './memory-helpers.ts'

const WORKERS = 6
const ROUNDS = 12
/** Workers killed with SIGKILL, and after how many of their own printed writes. */
const KILL_AFTER = new Map([
  [1, 3],
  [4, 8],
])
const CAP = 400

const dir = tempDir('engram-claude-memory-processes-')

const printed = (child: Child, kind: string) =>
  child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith(`${kind} `))
    .map((line) => line.slice(kind.length + 1))

describe('Claude memory tool under concurrent processes', () => {
  it('6 writers on one user, 2 of them killed with SIGKILL mid-run, lose no acknowledged file, line or entry, and MEMORY.md stays under its cap', async () => {
    const config = memoryConfig(dir, { memoryCharLimit: CAP })
    const folder = join(config.memoryPath, '..')
    const dbPath = join(dir, 'shared.db')
    const setup = await openStore({ url: dbPath })
    const memory = new MemoryFiles(config)
    const handlers = createClaudeMemoryHandlers({ memory, store: setup, userId: 'ada' })
    await handlers.create({ command: 'create', path: '/memories/shared.md', file_text: 'shared notes' })

    const children = Array.from({ length: WORKERS }, (_, worker) =>
      spawnAgentScript('claude-memory-writer.ts', [
        dbPath,
        folder,
        String(worker),
        String(ROUNDS),
        String(CAP),
      ]),
    )
    await runKillingWriters(children, KILL_AFTER, 600_000)

    // A new connection, as the next process would open it.
    const store = await openStore({ url: dbPath })
    const reader = createClaudeMemoryHandlers({ memory, store, userId: 'ada' })
    const files = children.flatMap((child) => printed(child, 'file'))
    const lines = children.flatMap((child) => printed(child, 'line'))
    const entries = children.flatMap((child) => printed(child, 'entry'))
    const full = children.flatMap((child) => printed(child, 'full'))
    for (const path of files) {
      const [, worker, round] = /w(\d)\/note-(\d+)/.exec(path) ?? []
      expect(await reader.view({ command: 'view', path })).toMatch(
        new RegExp(`1\\tworker ${worker} note ${round}$`),
      )
    }
    const shared = String(await reader.view({ command: 'view', path: '/memories/shared.md' }))
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t')[1])
    expect(shared.at(-1)).toBe('shared notes')
    expect(lines.filter((line) => !shared.includes(line))).toEqual([])
    expect(new Set(shared).size).toBe(shared.length)
    expect(shared.every((line) => line === 'shared notes' || /^worker \d line \d+$/.test(line ?? ''))).toBe(
      true,
    )
    const kept = (await memory.read('memory')).entries
    expect(entries.filter((entry) => !kept.includes(entry))).toEqual([])
    expect(countChars(kept.join('\n§\n'))).toBeLessThanOrEqual(CAP)
    console.log(
      `claude memory processes: ${files.length} files, ${lines.length} shared lines, ${entries.length} entries acknowledged, ${full.length} refused at the cap; ${(await store.listSessions({ source: CLAUDE_MEMORY_SOURCE, limit: 1000 })).length} sessions`,
    )
    expect(lines.length).toBeGreaterThan(WORKERS * 2)
    expect(full.length).toBeGreaterThan(0)
    await store.close()
    await setup.close()
  })
})
