import { openStore, type Store } from '@engram/core'
import { generateText, type ModelMessage, stepCountIs, streamText, wrapLanguageModel } from 'ai'
import { afterEach, expect, it } from 'vitest'
import { toolPairingProblems } from '../../agent/test/agent-helpers.ts'
import { bodyOf, startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { engramMiddleware, engramTools } from '../src/index.ts'
import { deployTool, localModel, responseMessagesOf, tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const usage = { prompt: 60, completion: 6 }
const call = (id: string, target: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'deploy', arguments: JSON.stringify({ target }) },
})
type Sent = { messages: { role: string; content: unknown }[] }

it('generateText and streamText with a tool over two turns are recorded once each, and a new store resumes', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  await world.memory.apply('memory', [{ action: 'add', content: 'Deploys go through scripts/deploy.sh' }])
  const server = await startServer([
    openaiAnswer({ toolCalls: [call('call_1', 'staging')], usage }),
    openaiAnswer({ text: 'Staging is deployed.', usage }),
    openaiAnswer({ toolCalls: [call('call_2', 'production')], usage }),
    openaiAnswer({ text: 'Production is deployed too.', usage }),
    openaiAnswer({ text: 'You deployed staging and production.', usage }),
  ])
  cleanups.push(() => server.close())
  const sessionId = 'chat-1'
  let store: Store = await openStore({ url: world.dbPath })
  const modelFor = (s: Store) =>
    wrapLanguageModel({
      model: localModel(server.origin),
      middleware: engramMiddleware({ store: s, sessionId, memory: world.memory }),
    })
  let model = modelFor(store)
  const settings = { system: 'You deploy services.', tools: { deploy: deployTool }, stopWhen: stepCountIs(3) }

  const messages: ModelMessage[] = [{ role: 'user', content: 'Deploy staging.' }]
  const first = await generateText({ model, messages, ...settings })
  expect(first.text).toBe('Staging is deployed.')
  messages.push(...(await responseMessagesOf(first)), { role: 'user', content: 'And production?' })
  const second = streamText({ model, messages, ...settings })
  expect(await second.text).toBe('Production is deployed too.')
  messages.push(...(await responseMessagesOf(second)))

  // The frozen memory block is in every call's system prompt; the second turn got the first whole.
  for (const request of server.requests) {
    const system = (request.body as Sent).messages[0]
    expect(system?.role).toBe('system')
    expect(system?.content).toContain('Deploys go through scripts/deploy.sh')
  }
  const roles = ['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']
  const stored = await store.getMessages(sessionId)
  expect(stored.map((m) => m.role)).toEqual(roles)
  expect(toolPairingProblems(stored)).toEqual([])
  expect((await store.usage({ sessionId })).total).toMatchObject({
    calls: 4,
    inputTokens: 240,
    outputTokens: 24,
  })
  await store.close()

  // A memory written since does not change the resumed session's prompt; only the new turn is recorded.
  await world.memory.apply('memory', [{ action: 'add', content: 'Staging runs on port 8080' }])
  store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  model = modelFor(store)
  messages.push({ role: 'user', content: 'What did I deploy?' })
  const third = await generateText({ model, messages, ...settings })
  expect(third.text).toBe('You deployed staging and production.')
  const sent = server.requests[4]?.body as Sent
  expect(sent.messages[0]?.content).toBe(bodyOf<Sent>(server, 0).messages[0]?.content)
  expect(sent.messages).toHaveLength(10)
  expect((await store.getMessages(sessionId)).map((m) => m.role)).toEqual([...roles, 'user', 'assistant'])
  expect((await store.search('production', { sessionId })).length).toBeGreaterThanOrEqual(2)
})

it('the memory and session_search tools run as AI SDK tools with the agent tools’ results', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const earlier = await store.createSession({ source: 'cli' })
  await store.appendMessage(earlier.id, { role: 'user', content: 'The staging database lives on port 5433' })
  const current = await store.createSession({ source: 'ai-sdk' })
  const server = await startServer([
    openaiAnswer({
      toolCalls: [
        {
          id: 'call_m',
          type: 'function',
          function: {
            name: 'memory',
            arguments: '{"target":"user","action":"add","content":"Prefers short answers"}',
          },
        },
        {
          id: 'call_s',
          type: 'function',
          function: { name: 'session_search', arguments: '{"query":"staging database"}' },
        },
      ],
      usage,
    }),
    openaiAnswer({ text: 'Port 5433.', usage }),
  ])
  cleanups.push(() => server.close())
  const result = await generateText({
    model: localModel(server.origin),
    prompt: 'Where is the staging database? Also remember I like short answers.',
    tools: engramTools({ memory: world.memory, store, context: { sessionId: current.id } }),
    stopWhen: stepCountIs(2),
  })
  expect(result.text).toBe('Port 5433.')
  const sent = bodyOf<Sent>(server, 1).messages.filter((m) => m.role === 'tool')
  expect(sent[0]?.content).toMatch(/^USER\.md: added 1 entry/)
  expect(sent[1]?.content).toContain('port 5433')
  expect((await world.memory.snapshot()).text).toContain('Prefers short answers')
})
