import { join } from 'node:path'
import { openStore, type Store } from '@engram/core'
import { afterAll } from 'vitest'
import { type ClaudeMemoryOptions, createClaudeMemoryHandlers } from '../src/claude-memory/index.ts'
import { MemoryFiles } from '../src/index.ts'
import { memoryConfig, tempDir } from './memory-helpers.ts'

const dir = tempDir('engram-claude-memory-')
const stores: Store[] = []
afterAll(async () => {
  for (const store of stores) await store.close().catch(() => undefined)
})

let counter = 0

/** A database and memory files of their own, and the memory tool's handlers on them for `userId`. */
export async function claudeMemoryWorld(options: Partial<ClaudeMemoryOptions> & { userId?: string } = {}) {
  const dbPath = join(dir, `claude-${++counter}.db`)
  const memory = new MemoryFiles(memoryConfig(dir))
  const open = async () => {
    const store = await openStore({ url: dbPath })
    stores.push(store)
    return store
  }
  const store = await open()
  const handlersFor = (userId: string, over: Partial<ClaudeMemoryOptions> = {}) =>
    createClaudeMemoryHandlers({ memory, store, userId, ...options, ...over })
  return { dbPath, memory, store, open, handlersFor, handlers: handlersFor(options.userId ?? 'ada') }
}
