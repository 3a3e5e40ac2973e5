import { openStore, type Store } from '@engram/core'
import {
  convertToModelMessages,
  createIdGenerator,
  createUIMessageStream,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
} from 'ai'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { createChatStore } from '../src/index.ts'
import { deployTool, localModel, tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
const usage = { prompt: 30, completion: 3 }
const jsonOf = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
const tools = {
  deploy: deployTool,
  // A client-side tool: no execute, the browser answers it with addToolResult.
  confirm: tool({ description: 'Asks the user.', inputSchema: z.object({ question: z.string() }) }),
}

/** One server turn as an app runs it: saved after every step of the run and once more at its end. */
async function chatTurn(
  origin: string,
  messages: UIMessage[],
  save: (messages: UIMessage[]) => Promise<unknown>,
) {
  const result = streamText({
    model: localModel(origin),
    messages: await convertToModelMessages(messages),
    tools,
    stopWhen: stepCountIs(3),
  })
  const stream = createUIMessageStream({
    originalMessages: messages,
    generateId: createIdGenerator({ prefix: 'msg', size: 16 }),
    execute: ({ writer }) => writer.merge(result.toUIMessageStream()),
    onStepFinish: async ({ messages: all }) => {
      await save(all)
    },
    onFinish: async ({ messages: all }) => {
      await save(all)
    },
  })
  const reader = stream.getReader()
  while (!(await reader.read()).done) {}
}

describe('createChatStore', () => {
  it('stores a streamed multi-step chat with server ids, upserts by id, and validates on load from a new store', async () => {
    const world = tempWorld()
    cleanups.push(world.cleanup)
    const server = await startServer([
      openaiAnswer({
        toolCalls: [
          { id: 'call_1', type: 'function', function: { name: 'deploy', arguments: '{"target":"staging"}' } },
        ],
        usage,
      }),
      openaiAnswer({ text: 'Staging is deployed.', usage }),
      openaiAnswer({
        toolCalls: [
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'confirm', arguments: '{"question":"Production too?"}' },
          },
        ],
        usage,
      }),
    ])
    cleanups.push(() => server.close())
    let store: Store = await openStore({ url: world.dbPath })
    let chats = createChatStore({ store })
    const user = (id: string, text: string): UIMessage => ({
      id,
      role: 'user',
      parts: [{ type: 'text', text }],
    })

    let saved: UIMessage[] = []
    const afterEachSave: string[][] = []
    await chatTurn(server.origin, [user('u1', 'Deploy staging.')], async (all) => {
      saved = await chats.saveChat({ id: 'chat-7', messages: all })
      const stored = await chats.loadChat('chat-7', { tools })
      afterEachSave.push(
        stored.flatMap((m) => m.parts.map((p) => ('state' in p ? `${p.type}:${p.state}` : p.type))),
      )
    })
    // The tool step was stored when it finished, before the answer existed; the end changed nothing more.
    expect(afterEachSave[0]).toEqual(['text', 'step-start', 'tool-deploy:output-available'])
    expect(afterEachSave.at(-1)).toEqual([
      'text',
      'step-start',
      'tool-deploy:output-available',
      'step-start',
      'text:done',
    ])
    expect(saved.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(saved[1]?.id).toMatch(/^msg-/)
    // Every step of the run is in the one assistant message: the tool call, its result and the answer.
    expect(saved[1]?.parts.map((p) => p.type)).toEqual(['step-start', 'tool-deploy', 'step-start', 'text'])
    const count = async () => (await store.getMessages('chat-7')).length
    const afterFirst = await count()
    await chats.saveChat({ id: 'chat-7', messages: saved })
    expect(await count()).toBe(afterFirst)

    await chatTurn(server.origin, [...saved, user('u2', 'And production?')], async (all) => {
      saved = await chats.saveChat({ id: 'chat-7', messages: all })
    })
    const asking = saved[3]
    const confirmPart = asking?.parts.find((p) => p.type === 'tool-confirm')
    expect(confirmPart).toMatchObject({ state: 'input-available', toolCallId: 'call_2' })
    // addToolResult on the client: the same message, its tool part now answered.
    const answered: UIMessage[] = [
      ...saved.slice(0, 3),
      {
        ...(asking as UIMessage),
        parts: (asking as UIMessage).parts.map((p) =>
          p.type === 'tool-confirm' ? { ...p, state: 'output-available', output: 'yes' } : p,
        ) as UIMessage['parts'],
      },
    ]
    await chats.saveChat({ id: 'chat-7', messages: answered })
    await chats.saveChat({ id: 'chat-7', messages: answered })
    await store.close()

    store = await openStore({ url: world.dbPath })
    cleanups.push(() => store.close())
    chats = createChatStore({ store })
    const loaded = await chats.loadChat('chat-7', { tools })
    expect(loaded).toEqual(jsonOf(answered))
    expect(new Set(loaded.map((m) => m.id)).size).toBe(4)
    expect((await store.search('staging', { sessionId: 'chat-7' })).length).toBeGreaterThan(0)
    // Validation runs against the tools given: a stored call whose input the current tool refuses fails.
    const changed = {
      ...tools,
      deploy: tool({ description: 'Deploys.', inputSchema: z.object({ target: z.number() }) }),
    }
    await expect(chats.loadChat('chat-7', { tools: changed })).rejects.toThrow(/target/)
    expect(await chats.loadChat('never-saved')).toEqual([])
  })
})

const text = fc.string({ maxLength: 10 })
const input = fc.record({ target: text })
const part = fc.oneof(
  fc.record({
    type: fc.constant('text' as const),
    text,
    state: fc.constantFrom('done' as const, 'streaming' as const),
  }),
  fc.record({ type: fc.constant('reasoning' as const), text }),
  fc.record({ type: fc.constant('step-start' as const) }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('input-available' as const),
    input,
  }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('output-available' as const),
    input,
    output: text,
  }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('output-error' as const),
    input,
    errorText: text,
  }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('input-streaming' as const),
    input: fc.constant({}),
  }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('approval-requested' as const),
    input,
    approval: fc.record({ id: text }),
  }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('approval-responded' as const),
    input,
    approval: fc.record({ id: text, approved: fc.boolean() }),
  }),
  fc.record({
    type: fc.constant('tool-deploy' as const),
    toolCallId: text,
    state: fc.constant('output-denied' as const),
    input,
    approval: fc.record({ id: text, approved: fc.constant(false as const), reason: text }),
  }),
  fc.record({
    type: fc.constant('dynamic-tool' as const),
    toolName: fc.constantFrom('lookup', 'mcp_search'),
    toolCallId: text,
    state: fc.constant('output-available' as const),
    input: fc.jsonValue({ maxDepth: 1 }),
    output: fc.jsonValue({ maxDepth: 1 }),
  }),
  fc.record({
    type: fc.constant('source-url' as const),
    sourceId: text,
    url: fc.constant('https://example.com/a'),
  }),
  fc.record({
    type: fc.constant('source-document' as const),
    sourceId: text,
    mediaType: fc.constant('text/plain'),
    title: text,
  }),
  fc.record({
    type: fc.constant('file' as const),
    mediaType: fc.constant('image/png'),
    url: fc.constant('data:image/png;base64,AAAA'),
  }),
  fc.record({ type: fc.constant('data-note' as const), data: fc.jsonValue({ maxDepth: 2 }) }),
)
const message = (id: string) =>
  fc.record({
    id: fc.constant(id),
    role: fc.constantFrom('user' as const, 'assistant' as const),
    parts: fc.array(part, { minLength: 1, maxLength: 4 }),
  })

describe('createChatStore properties', () => {
  let store: Store
  let cleanup: () => void
  beforeAll(async () => {
    const world = tempWorld()
    cleanup = world.cleanup
    store = await openStore({ url: world.dbPath })
  })
  afterAll(async () => {
    await store.close()
    cleanup()
  })

  it('after any sequence of saves (appends, edits by id, regenerated tails, repeats) loading gives the last one', async () => {
    // Each save is drawn as: keep a prefix of the previous list, change some kept messages, add new ones.
    const save = fc.record({
      keep: fc.nat({ max: 6 }),
      edits: fc.array(fc.tuple(fc.nat({ max: 5 }), message('x')), { maxLength: 2 }),
      added: fc.array(message('x'), { maxLength: 3 }),
      // The first new message takes the id of one dropped earlier (a client re-sending it).
      reuse: fc.boolean(),
    })
    let chat = 0
    await fc.assert(
      fc.asyncProperty(fc.array(save, { minLength: 1, maxLength: 6 }), async (saves) => {
        const chats = createChatStore({ store })
        const id = `chat-${chat++}`
        let current: UIMessage[] = []
        let next = 0
        const dropped: string[] = []
        for (const s of saves) {
          const kept = current.slice(0, s.keep)
          dropped.push(...current.slice(s.keep).map((m) => m.id))
          for (const [index, edit] of s.edits) {
            const old = kept[index]
            if (old) kept[index] = { ...edit, id: old.id }
          }
          // Half the new messages come without an id, as a client sends them: the store gives one.
          const added = s.added.map((m, i) => ({ ...m, id: i % 2 ? '' : `m${next++}` }))
          const back = dropped.pop()
          if (s.reuse && added[0] && back !== undefined) added[0].id = back
          current = await chats.saveChat({ id, messages: [...kept, ...added] as UIMessage[] })
          expect(current.every((m) => m.id !== '')).toBe(true)
          expect(await chats.loadChat(id)).toEqual(jsonOf(current))
        }
        const stored = (await store.getMessages(id)).length
        await chats.saveChat({ id, messages: current })
        expect((await store.getMessages(id)).length).toBe(stored)
      }),
      { numRuns: 40 },
    )
  })
})
