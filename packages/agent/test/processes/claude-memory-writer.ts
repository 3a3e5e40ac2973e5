// A child process that writes one user's memories through Claude's memory-tool handlers as fast as it can:
// per round a file of its own, a line inserted at the top of the shared /memories/shared.md, and every
// third round an entry added to MEMORY.md. It prints `file <path>`, `line <text>`, `entry <text>` (or
// `full <text>` when the cap refused it) after each write resolved.
// Usage: claude-memory-writer.ts <db path> <memory folder> <worker> <rounds> <memory cap>
import { join } from 'node:path'
import { MemoryFiles, MemoryRefusal } from '@engram/agent'
import { createClaudeMemoryHandlers, MemoryToolError } from '@engram/agent/claude-memory'
import { openStore } from '@engram/core'

const [dbPath = '', folder = '', worker = '0', rounds = '10', cap = '2200'] = process.argv.slice(2)
const store = await openStore({ url: dbPath })
const memory = new MemoryFiles({
  memoryPath: join(folder, 'MEMORY.md'),
  userPath: join(folder, 'USER.md'),
  memoryCharLimit: Number(cap),
  userCharLimit: 1375,
  compactTriggerRatio: 0.9,
})
const handlers = createClaudeMemoryHandlers({ memory, store, userId: 'ada' })

/**
 * Runs one command as the model would: a refusal that says "Retry" (the lock was taken over from a writer
 * stalled past its stale limit, which a loaded machine does, and the version check refused its write, so
 * nothing was written) is tried again; any other error ends the process.
 */
async function asTheModelWould<T>(command: () => T | PromiseLike<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await command()
    } catch (error) {
      if (!(error instanceof MemoryToolError) || !error.message.endsWith('Retry.') || attempt === 20)
        throw error
    }
  }
}

for (let i = 0; i < Number(rounds); i++) {
  const path = `/memories/w${worker}/note-${i}.md`
  await asTheModelWould(() =>
    handlers.create({ command: 'create', path, file_text: `worker ${worker} note ${i}` }),
  )
  process.stdout.write(`file ${path}\n`)
  const line = `worker ${worker} line ${i}`
  await asTheModelWould(() =>
    handlers.insert({ command: 'insert', path: '/memories/shared.md', insert_line: 0, insert_text: line }),
  )
  process.stdout.write(`line ${line}\n`)
  if (i % 3 === 0) {
    const entry = `worker ${worker} fact ${i}: 用户喜欢简洁的回答`
    try {
      await asTheModelWould(() =>
        handlers.insert({
          command: 'insert',
          path: '/memories/MEMORY.md',
          insert_line: 0,
          insert_text: `${entry}\n§`,
        }),
      )
      process.stdout.write(`entry ${entry}\n`)
    } catch (error) {
      if (!(error instanceof MemoryRefusal) || error.reason !== 'over_cap') throw error
      process.stdout.write(`full ${entry}\n`)
    }
  }
}
await store.close()
