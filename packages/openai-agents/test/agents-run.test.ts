import { createSessionSearchTool, runTool, toolResultText } from '@engram/agent'
import { openStore } from '@engram/core'
import { MemorySession, run } from '@openai/agents'
import { afterEach, describe, expect, it } from 'vitest'
import { type LocalServer, startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer, type ScriptedAnswer } from '../../agent/test/servers/openai.ts'
import { EngramSession } from '../src/index.ts'
import { deployAgent, deployCall, sentMessages, tempDatabase, toolPairingProblems } from './agents-helpers.ts'

const usage = { prompt: 50, completion: 5 }
// Two turns, each a tool call and then the answer.
const script: ScriptedAnswer[] = [
  { toolCalls: [deployCall('call_1', 'staging')], usage },
  { text: 'Staging is deployed.', usage },
  { toolCalls: [deployCall('call_2', 'production')], usage },
  { text: 'Production is deployed too.', usage },
  { text: 'You deployed staging and production.', usage },
]

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function serve(answers: ScriptedAnswer[]): Promise<LocalServer> {
  const server = await startServer(answers.map(openaiAnswer))
  cleanups.push(() => server.close())
  return server
}

async function drain(result: AsyncIterable<unknown> & { completed: Promise<void> }) {
  for await (const _event of result) {
  }
  await result.completed
}

describe('EngramSession under the Agents SDK runner', () => {
  it('keeps the items of streamed and non-streamed runs as the SDK made them, and a new store continues them', async () => {
    const { dbPath, cleanup } = tempDatabase()
    cleanups.push(cleanup)
    const server = await serve(script)
    const reference = await serve(script)
    const agent = deployAgent(server.origin)
    const referenceAgent = deployAgent(reference.origin)

    let store = await openStore({ url: dbPath })
    const session = new EngramSession({ store })
    const memory = new MemorySession()
    const first = await run(agent, 'Deploy staging.', { session })
    await run(referenceAgent, 'Deploy staging.', { session: memory })
    expect(first.finalOutput).toBe('Staging is deployed.')
    await drain(await run(agent, 'And production?', { session, stream: true }))
    await drain(await run(referenceAgent, 'And production?', { session: memory, stream: true }))

    // What the SDK's own in-memory session holds, item for item.
    const items = await session.getItems()
    expect(items).toEqual(await memory.getItems())
    expect(items.map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_result',
      'message',
      'message',
      'function_call',
      'function_call_result',
      'message',
    ])
    // The second turn was sent the first one whole.
    const secondTurn = sentMessages(server.requests[2]?.body)
    expect(secondTurn.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ])
    const id = await session.getSessionId()
    await store.close()

    store = await openStore({ url: dbPath })
    cleanups.push(() => store.close())
    const resumed = new EngramSession({ store, sessionId: id })
    const third = await run(agent, 'What did I deploy?', { session: resumed })
    expect(third.finalOutput).toBe('You deployed staging and production.')
    const sent = sentMessages(server.requests[4]?.body)
    expect(sent.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ])
    expect(toolPairingProblems(sent.slice(1))).toEqual([])
    expect(JSON.stringify(sent.at(-2)?.content)).toContain('Production is deployed too.')

    // What was said and called is searchable in the store.
    const hits = await store.search('production', { sessionId: id })
    expect(hits.length).toBeGreaterThanOrEqual(2)
    expect((await store.search('deployed staging', { sessionId: id })).length).toBeGreaterThan(0)
    // And the agent's session_search tool finds it from another conversation.
    const other = await store.createSession({ source: 'cli' })
    const found = toolResultText(
      await runTool(
        createSessionSearchTool(store),
        { query: 'production deployed' },
        { sessionId: other.id },
      ),
    )
    expect(found).toContain(id)
    expect(found).toContain('Production is deployed too.')
  })
})
