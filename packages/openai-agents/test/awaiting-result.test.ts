import { ContextCompressor } from '@engram/compressor'
import { openStore, type Store } from '@engram/core'
import type { AgentInputItem } from '@openai/agents'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { EngramSession } from '../src/index.ts'
import { tempDatabase } from './agents-helpers.ts'

let store: Store
let cleanup: () => void
beforeAll(async () => {
  const db = tempDatabase()
  cleanup = db.cleanup
  store = await openStore({ url: db.dbPath })
})
afterAll(async () => {
  await store.close()
  cleanup()
})

const summarizer = { summarize: async () => 'The earlier turns deployed services.' }
const ask = (text: string) => ({ role: 'user', content: text })
const call = (id: string) => ({
  type: 'function_call',
  callId: id,
  name: 'deploy',
  arguments: '{"target":"staging"}',
  status: 'completed',
})
const result = (id: string) => ({
  type: 'function_call_result',
  callId: id,
  name: 'deploy',
  status: 'completed',
  output: { type: 'text', text: 'deploy log line\n'.repeat(200) },
})
/** Turns long enough that a forced compaction has something to cut. */
const earlier = Array.from({ length: 6 }, (_, i) => [
  ask(`deploy ${i}`),
  call(`c${i}`),
  result(`c${i}`),
]).flat()

/** Adds the items, forces a compaction, and says whether it compacted (and that nothing changed if not). */
async function compacts(items: Record<string, unknown>[]): Promise<boolean> {
  let compacted = false
  const session = new EngramSession({
    store,
    compressor: new ContextCompressor({ window: 2_000, summarizer }),
    onCompaction: () => {
      compacted = true
    },
  })
  await session.addItems(items as AgentInputItem[])
  const id = await session.getSessionId()
  await session.runCompaction({ force: true })
  if (!compacted) {
    expect(await session.getItems()).toEqual(items)
    expect(await store.resolveTip(id)).toBe(id)
  }
  return compacted
}

it('no compaction while the latest turn waits for a tool result (an approval); one once the result is there', async () => {
  expect(await compacts([...earlier, ask('deploy prod'), call('wait')])).toBe(false)
  // Two calls of the latest turn, one answered: it still waits for the other.
  expect(await compacts([...earlier, ask('deploy prod'), call('a'), call('b'), result('a')])).toBe(false)
  expect(await compacts([...earlier, ask('deploy prod'), call('wait'), result('wait')])).toBe(true)
})

it('a call of an earlier turn left without its result (a killed run) does not stop compaction', async () => {
  expect(await compacts([...earlier, ask('deploy prod'), call('killed'), ask('try again')])).toBe(true)
})
