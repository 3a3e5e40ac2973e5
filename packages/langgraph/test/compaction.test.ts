import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAIProvider, createSummarizer } from '@engram/agent'
import { ContextCompressor } from '@engram/compressor'
import { openStore } from '@engram/core'
import { HumanMessage } from '@langchain/core/messages'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { agentGraph } from './agent-graph.ts'
import { model, SUMMARY, SUMMARY_MODEL } from './model-server.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A turn long enough that a few of them fill the small window. */
const longTurn = (i: number) =>
  `Turn ${i}: ${Array.from({ length: 60 }, (_, j) => `release note ${i}.${j} about service-${i}`).join('; ')}`

it('compactMessages runs the compressor on the messages channel when the window fills; the session keeps every original message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-langgraph-compaction-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const server = await startServer([], model)
  cleanups.push(() => server.close())
  const store = await openStore({ url: join(dir, 'engram.db') })
  cleanups.push(() => store.close())
  const summarizer = createSummarizer(
    createOpenAIProvider({
      apiKey: 'sk-local',
      baseUrl: `${server.origin}/v1`,
      model: SUMMARY_MODEL,
      env: {},
      maxRetries: 0,
    }),
  )
  const compressor = new ContextCompressor({ window: 4000, summarizer })
  const graph = agentGraph({ store, origin: server.origin, compressor })
  const config = { configurable: { thread_id: 'long' } }
  const turns = 8
  let state: Awaited<ReturnType<typeof graph.invoke>> | undefined
  for (let i = 0; i < turns; i++)
    state = await graph.invoke({ messages: [new HumanMessage(longTurn(i))] }, config)

  const summaries = server.requests.filter((r) => (r.body as { model: string }).model === SUMMARY_MODEL)
  expect(summaries.length).toBeGreaterThanOrEqual(1)
  // the channel holds the summary and the latest turns, fewer messages than were said
  const texts = (state?.messages ?? []).map((m) => String(m.content))
  expect(texts.some((text) => text.includes(SUMMARY))).toBe(true)
  expect(texts.length).toBeLessThan(turns * 2)
  expect(texts.at(-2)).toBe(longTurn(turns - 1))
  // the model was sent the compacted channel, not the whole conversation
  const last = server.requests.at(-1)?.body as { messages: { content: string }[] }
  expect(last.messages.some((m) => m.content.includes(SUMMARY))).toBe(true)
  expect(last.messages.some((m) => m.content === longTurn(0))).toBe(false)
  // the thread's session still holds every original message (each once), and the summary, searchable
  const stored = await store.getStoredMessages('langgraph-long')
  for (let i = 0; i < turns; i++) expect(stored.filter((m) => m.content === longTurn(i))).toHaveLength(1)
  expect((await store.search('service-0')).some((hit) => hit.sessionId === 'langgraph-long')).toBe(true)
})
