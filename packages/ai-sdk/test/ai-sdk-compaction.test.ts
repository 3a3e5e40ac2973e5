import { createOpenAIProvider, createSummarizer } from '@engram/agent'
import { ContextCompressor } from '@engram/compressor'
import { openStore, type Store } from '@engram/core'
import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { toolPairingProblems } from '../../agent/test/agent-helpers.ts'
import { type Reply, startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { type CompactionEvent, engramMiddleware } from '../src/index.ts'
import { localModel, responseMessagesOf, tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const usage = { prompt: 90, completion: 9 }
const SUMMARY = 'Deploys so far: services 0 to 3 were deployed; all succeeded.'
type Sent = { model: string; messages: { role: string; content: unknown; tool_calls?: unknown }[] }
const deploy = tool({
  description: 'Deploys a target.',
  inputSchema: z.object({ target: z.string() }),
  // Long enough that a few turns fill the small window.
  execute: async ({ target }) =>
    `deployed ${target}\n${Array.from({ length: 30 }, (_, i) => `step ${i}: ${target} ok`).join('\n')}`,
})
const call = (i: number) => ({
  id: `call_${i}`,
  type: 'function' as const,
  function: { name: 'deploy', arguments: JSON.stringify({ target: `service-${i}` }) },
})

it('the middleware compresses a long generateText / streamText conversation into a child session and sends the compressed history from then on', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const turns = 7
  const queue: Reply[] = Array.from({ length: turns }, (_, i) => [
    openaiAnswer({ toolCalls: [call(i)], usage }),
    openaiAnswer({ text: `service-${i} is deployed.`, usage }),
  ]).flat()
  const server = await startServer([], (request, res) => {
    if ((request.body as Sent).model === 'gpt-summary')
      return openaiAnswer({ text: SUMMARY, usage: { prompt: 300, completion: 20 } })(request, res)
    const next = queue.shift()
    if (!next) throw new Error('no answer queued')
    return next(request, res)
  })
  cleanups.push(() => server.close())
  const summarizer = createSummarizer(
    createOpenAIProvider({
      apiKey: 'sk-local',
      baseUrl: `${server.origin}/v1`,
      model: 'gpt-summary',
      env: {},
      maxRetries: 0,
    }),
  )
  const compactions: CompactionEvent[] = []
  const modelFor = (store: Store) =>
    wrapLanguageModel({
      model: localModel(server.origin),
      middleware: engramMiddleware({
        store,
        sessionId: 'calls',
        compressor: new ContextCompressor({ window: 3000, summarizer, fixedTokens: 60 }),
        onCompaction: (event) => compactions.push(event),
      }),
    })
  let store = await openStore({ url: world.dbPath })
  let model = modelFor(store)
  const settings = { system: 'You deploy services.', tools: { deploy }, stopWhen: stepCountIs(3) }
  const messages: ModelMessage[] = []
  const turn = async (i: number) => {
    messages.push({ role: 'user', content: `Deploy service-${i}.` })
    if (i % 2 === 0) {
      const result = await generateText({ model, messages, ...settings })
      expect(result.text).toBe(`service-${i} is deployed.`)
      messages.push(...(await responseMessagesOf(result)))
    } else {
      const result = streamText({ model, messages, ...settings })
      expect(await result.text).toBe(`service-${i} is deployed.`)
      messages.push(...(await responseMessagesOf(result)))
    }
  }
  for (let i = 0; i < turns - 1; i++) await turn(i)

  expect(compactions.length).toBeGreaterThanOrEqual(1)
  expect(compactions[0]?.sessionId).toBe('calls')
  const summaryCalls = server.requests.filter((r) => (r.body as Sent).model === 'gpt-summary')
  expect(summaryCalls).toHaveLength(compactions.length)
  // Every call after the first compaction carried the summary instead of the first ask, tools paired.
  const calls = server.requests.filter((r) => (r.body as Sent).model === 'gpt-local')
  const firstCompacted = server.requests.indexOf(summaryCalls[0] as (typeof server.requests)[number]) + 1
  const after = server.requests.slice(firstCompacted).map((r) => r.body as Sent)
  expect(after.length).toBeGreaterThan(0)
  for (const body of after) {
    expect(JSON.stringify(body.messages)).toContain(SUMMARY)
    expect(JSON.stringify(body.messages)).not.toContain('Deploy service-1.')
    expect(body.messages[0]).toMatchObject({ role: 'system', content: 'You deploy services.' })
    expect(toolPairingProblems(body.messages.slice(1) as never)).toEqual([])
  }
  const last = calls.at(-1)?.body as Sent
  expect(last.messages.length).toBeLessThan(messages.length + 1)
  // The parent keeps what was cut (searchable), the child holds the compressed history and what followed.
  const tip = compactions.at(-1)?.childSessionId as string
  expect(await store.resolveTip('calls')).toBe(tip)
  expect((await store.getSession('calls'))?.endReason).toBe('compression')
  expect((await store.search('service-0', { sessionId: 'calls' })).length).toBeGreaterThan(0)
  expect(toolPairingProblems(await store.getMessages(tip))).toEqual([])
  await store.close()

  // A new store resumes the compacted session: the same compressed prefix, then the new turn.
  store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  model = modelFor(store)
  const before = compactions.length
  await turn(turns - 1)
  const resumed = server.requests.at(-2)?.body as Sent
  // No new compaction: it sent what the last call sent, then the rest of that turn and the new ask.
  expect(compactions.length).toBe(before)
  expect(resumed.messages.slice(0, last.messages.length)).toEqual(last.messages)
  expect(JSON.stringify(resumed.messages)).toContain(SUMMARY)
  expect(toolPairingProblems(resumed.messages.slice(1) as never)).toEqual([])
  expect(JSON.stringify(resumed.messages.at(-1))).toContain(`Deploy service-${turns - 1}.`)
})
