import type { ChatMessage, ToolCall } from '@engram/core'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { normaliseHistory, UNNAMED_TOOL } from '../src/agent/answer.ts'
import {
  type AgentEvent,
  createOfflineModel,
  createSessionSearchTool,
  type ModelProvider,
  runTool,
  toolResultText,
} from '../src/index.ts'
import { renderSessionSearch } from '../src/tools/session-search.ts'
import { agentConfig, toolPairingProblems, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'
import { localProvider, type Vendor } from './providers-helpers.ts'
import { anthropicAnswer } from './servers/anthropic.ts'
import { bodyOf, hang, type LocalServer, type Reply, sendJson, startServer } from './servers/http.ts'
import { completionJson, openaiAnswer } from './servers/openai.ts'

const dir = tempDir('engram-contracts-')
const servers: LocalServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})
async function serve(replies: Reply[], fallback?: Reply): Promise<LocalServer> {
  const server = await startServer(replies, fallback)
  servers.push(server)
  return server
}

/** Problems a vendor would refuse in the OpenAI request `body`: missing or repeated ids, names, arguments. */
function openaiProblems(body: { messages: ChatMessage[] }): string[] {
  const problems: string[] = []
  const ids = new Set<string>()
  for (const message of body.messages) {
    for (const call of message.tool_calls ?? []) {
      if (typeof call.id !== 'string' || call.id === '' || ids.has(call.id))
        problems.push(`bad id ${call.id}`)
      ids.add(call.id)
      if (typeof call.function?.name !== 'string' || !call.function.name) problems.push('no name')
      if (typeof call.function?.arguments !== 'string')
        problems.push(`arguments ${typeof call.function?.arguments}`)
    }
  }
  return [...problems, ...toolPairingProblems(body.messages.filter((m) => m.role !== 'system'))]
}

type Block = { type: string; id?: string; name?: unknown; input?: unknown; tool_use_id?: string }
/** The same for an Anthropic request: tool_use ids unique and non-empty, names, object inputs, results paired. */
function anthropicProblems(body: { messages: { role: string; content: Block[] | string }[] }): string[] {
  const problems: string[] = []
  const ids = new Set<string>()
  let open = new Set<string>()
  for (const message of body.messages) {
    const blocks = typeof message.content === 'string' ? [] : message.content
    for (const block of blocks) {
      if (block.type === 'tool_use') {
        if (!block.id || ids.has(block.id)) problems.push(`bad id ${block.id}`)
        ids.add(block.id ?? '')
        open.add(block.id ?? '')
        if (typeof block.name !== 'string' || !block.name) problems.push('no name')
        if (typeof block.input !== 'object' || block.input === null) problems.push('input not an object')
      }
      if (block.type === 'tool_result' && !open.has(block.tool_use_id ?? '')) problems.push('stray result')
    }
    if (message.role === 'assistant')
      open = new Set([...blocks].filter((b) => b.type === 'tool_use').map((b) => b.id ?? ''))
  }
  return problems
}

const saveArgs = { target: 'memory', action: 'add', content: 'The build cache lives in /var/cache/ci.' }

/** Malformed tool calls as a model (or a proxy in front of one) may send them, per vendor. */
const SHAPES: Record<string, { openai: unknown[]; anthropic: unknown[] }> = {
  'arguments: null': {
    openai: [{ id: 'call_a', type: 'function', function: { name: 'memory', arguments: null } }],
    anthropic: [{ id: 'toolu_a', name: 'memory', input: null }],
  },
  'arguments as an object': {
    openai: [{ id: 'call_b', type: 'function', function: { name: 'memory', arguments: saveArgs } }],
    anthropic: [{ id: 'toolu_b', name: 'memory', input: saveArgs }],
  },
  'no function name': {
    openai: [{ id: 'call_c', type: 'function', function: { arguments: '{}' } }],
    anthropic: [{ id: 'toolu_c', input: {} }],
  },
  'an empty id': {
    openai: [{ id: '', type: 'function', function: { name: 'memory', arguments: JSON.stringify(saveArgs) } }],
    anthropic: [{ id: '', name: 'memory', input: saveArgs }],
  },
  'duplicate ids': {
    openai: [
      {
        id: 'call_same',
        type: 'function',
        function: { name: 'memory', arguments: JSON.stringify(saveArgs) },
      },
      { id: 'call_same', type: 'function', function: { name: 'session_search', arguments: '{}' } },
    ],
    anthropic: [
      { id: 'toolu_same', name: 'memory', input: saveArgs },
      { id: 'toolu_same', name: 'session_search', input: {} },
    ],
  },
}

function replies(vendor: Vendor, calls: unknown[]): Reply[] {
  const text = (t: string) =>
    vendor === 'openai'
      ? openaiAnswer({ text: t, usage: { prompt: 50, completion: 3 } })
      : anthropicAnswer({ text: t, usage: { input: 50, output: 3 } })
  const bad =
    vendor === 'openai'
      ? openaiAnswer({ toolCalls: calls as ToolCall[], usage: { prompt: 40, completion: 5 } })
      : anthropicAnswer({
          toolUses: calls as { id: string; name: string; input: Record<string, unknown> }[],
          usage: { input: 40, output: 5 },
        })
  return [bad, text('done one'), text('done two'), text('done three')]
}

describe('whatever tool calls a model sends, the session stays usable', () => {
  for (const vendor of ['openai', 'anthropic'] as const) {
    for (const [shape, calls] of Object.entries(SHAPES)) {
      it(`${vendor}: ${shape} — stored so it can be sent back; the next run and a resume in a fresh agent work`, async () => {
        const w = world(dir, `${vendor}-${shape.replace(/\W+/g, '-')}`)
        const server = await serve(replies(vendor, calls[vendor]))
        const provider = () => localProvider(vendor, server.origin, { maxRetries: 0 })
        const store = await w.open()
        const agent = w.agent(store, provider())
        expect(await agent.run('Please save the build cache location.')).toBe('done one')
        expect(await agent.run('Thanks.')).toBe('done two')

        const stored = await store.getMessages(agent.sessionId as string)
        const asked = stored.find((m) => m.tool_calls?.length)?.tool_calls ?? []
        expect(asked).toHaveLength(calls[vendor].length)
        for (const call of asked) {
          expect(call.id).toMatch(/^[\w-]+$/)
          expect(typeof call.function.arguments).toBe('string')
          expect(call.function.name).toMatch(/^[\w-]+$/)
        }
        expect(new Set(asked.map((c) => c.id)).size).toBe(asked.length)
        // Each call got its own result, under the id it was stored with.
        expect(toolPairingProblems(stored)).toEqual([])
        if (shape === 'no function name') {
          expect(asked[0]?.function.name).toBe(UNNAMED_TOOL)
          expect(stored.find((m) => m.role === 'tool')?.content).toContain(
            'The tool call had no function name',
          )
        }

        const fresh = w.agent(await w.open(), provider())
        await fresh.resume('latest')
        expect(await fresh.run('Are you still there?')).toBe('done three')

        expect(server.requests).toHaveLength(4)
        for (let i = 0; i < 4; i++) {
          const problems =
            vendor === 'openai'
              ? openaiProblems(bodyOf<{ messages: ChatMessage[] }>(server, i))
              : anthropicProblems(bodyOf(server, i))
          expect(problems, `request ${i}`).toEqual([])
        }
      })
    }
  }

  it('an id reused from an earlier turn is replaced, so ids stay unique in the conversation', async () => {
    const w = world(dir, 'reused-id')
    const call = { id: 'call_0', type: 'function', function: { name: 'session_search', arguments: '{}' } }
    const ok = (t: string) => openaiAnswer({ text: t, usage: { prompt: 5, completion: 1 } })
    const server = await serve([
      openaiAnswer({ toolCalls: [call as ToolCall], usage: { prompt: 5, completion: 1 } }),
      ok('one'),
      openaiAnswer({ toolCalls: [call as ToolCall], usage: { prompt: 5, completion: 1 } }),
      ok('two'),
    ])
    const agent = w.agent(await w.open(), localProvider('openai', server.origin, { maxRetries: 0 }))
    expect(await agent.run('list my sessions')).toBe('one')
    expect(await agent.run('and again')).toBe('two')
    expect(openaiProblems(bodyOf<{ messages: ChatMessage[] }>(server, 3))).toEqual([])
  })
})

describe('a history stored with malformed tool calls (by an older version or another tool)', () => {
  it('is sent in a valid shape, the same bytes on every request', async () => {
    const w = world(dir, 'legacy')
    const store = await w.open()
    const session = await store.createSession({ source: 'cli', systemPrompt: 'stored prompt' })
    await store.appendMessages(session.id, [
      { role: 'user', content: 'save two things' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'dup', type: 'function', function: { name: 'memory', arguments: null } },
          { id: 'dup', type: 'function', function: { arguments: { a: 1 } } },
        ] as unknown as ToolCall[],
      },
      { role: 'tool', tool_call_id: 'dup', content: 'first result' },
      { role: 'tool', tool_call_id: 'dup', content: 'second result' },
      { role: 'assistant', content: 'Saved.' },
    ])
    const ok = (t: string) => openaiAnswer({ text: t, usage: { prompt: 5, completion: 1 } })
    const server = await serve([ok('one'), ok('two')])
    const agent = w.agent(store, localProvider('openai', server.origin, { maxRetries: 0 }))
    await agent.resume(session.id)
    expect(await agent.run('still there?')).toBe('one')
    expect(await agent.run('and now?')).toBe('two')
    const first = bodyOf<{ messages: ChatMessage[] }>(server, 0)
    expect(openaiProblems(first)).toEqual([])
    const [, , calls, a, b] = first.messages
    expect(calls?.tool_calls?.map((c) => [c.function.name, c.function.arguments])).toEqual([
      ['memory', '{}'],
      [UNNAMED_TOOL, '{"a":1}'],
    ])
    // Each result still answers its own call, in order.
    expect([a?.tool_call_id, b?.tool_call_id]).toEqual(calls?.tool_calls?.map((c) => c.id))
    expect([a?.content, b?.content]).toEqual(['first result', 'second result'])
    const second = bodyOf<{ messages: ChatMessage[] }>(server, 1)
    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages)
  })
})

describe('normaliseHistory (property)', () => {
  const call = fc.record({
    id: fc.constantFrom('', 'a', 'b', 'dup'),
    type: fc.constant('function'),
    function: fc.record(
      {
        name: fc.constantFrom('memory', '', 'session_search'),
        arguments: fc.oneof(fc.constant(null), fc.constant('{}'), fc.dictionary(fc.string(), fc.integer())),
      },
      { requiredKeys: ['arguments'] },
    ),
  })
  const turn = fc
    .array(call, { maxLength: 4 })
    .map((calls): ChatMessage[] => [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: calls as unknown as ToolCall[] },
      ...calls.map((c, i): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: `result ${i}` })),
    ])

  it('gives unique ids, names and JSON-text arguments; each result keeps answering its own call; idempotent', () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 6 }), (turns) => {
        const history = turns.flat()
        const fixed = normaliseHistory(history)
        expect(openaiProblems({ messages: fixed })).toEqual([])
        for (let i = 0; i < fixed.length; i++) {
          const message = fixed[i] as ChatMessage
          if (message.role !== 'tool') continue
          // The n-th result after a call message answers its n-th call, as it did before.
          let start = i
          while (fixed[start - 1]?.role === 'tool') start--
          const asked = fixed[start - 1]?.tool_calls ?? []
          expect(message.tool_call_id).toBe(asked[i - start]?.id)
        }
        expect(normaliseHistory(fixed)).toEqual(fixed)
      }),
      { numRuns: 200 },
    )
  })
})

describe('assistant content as a parts array', () => {
  it('is the answer run() returns, and the next request carries it back', async () => {
    const parts: Reply = (_request, res) => {
      const body = completionJson({ usage: { prompt: 10, completion: 2 } })
      const [choice] = body.choices
      sendJson(res, 200, {
        ...body,
        choices: [
          {
            ...choice,
            message: {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Port 8443' },
                { type: 'text', text: 'on staging.' },
              ],
            },
          },
        ],
      })
    }
    const server = await serve([parts, openaiAnswer({ text: 'ok', usage: { prompt: 10, completion: 1 } })])
    const w = world(dir, 'parts')
    const agent = w.agent(await w.open(), localProvider('openai', server.origin, { maxRetries: 0 }))
    expect(await agent.run('Which port?')).toBe('Port 8443\non staging.')
    expect(await agent.run('Thanks')).toBe('ok')
    const sent = bodyOf<{ messages: ChatMessage[] }>(server, 1).messages
    expect(sent.at(-2)).toMatchObject({
      role: 'assistant',
      content: [{ text: 'Port 8443' }, { text: 'on staging.' }],
    })
  })
})

describe('the event hook', () => {
  it('reports context checks, tool calls and usage in order, with typed payloads', async () => {
    const w = world(dir, 'events')
    const events: AgentEvent[] = []
    const agent = w.agent(await w.open(), createOfflineModel(), { onEvent: (event) => events.push(event) })
    await agent.run('Remember that the staging server runs on port 8443.')
    expect(events.map((e) => e.type)).toEqual([
      'context',
      'usage',
      'tool-started',
      'tool-finished',
      'context',
      'usage',
    ])
    const sessionId = agent.sessionId as string
    expect(events.every((e) => e.sessionId === sessionId)).toBe(true)
    const [context, usage, started, finished] = events
    expect(context).toMatchObject({ type: 'context', window: 128_000, due: false })
    expect(usage).toMatchObject({ type: 'usage', record: { purpose: 'main', model: 'engram-offline' } })
    expect(started).toMatchObject({ type: 'tool-started', call: { function: { name: 'memory' } } })
    expect(finished).toMatchObject({
      type: 'tool-finished',
      result: { ok: true, content: expect.stringContaining('MEMORY.md: added 1 entry') },
    })
  })
})

describe('cancelling a run', () => {
  it('cancels a compression in progress: the run ends ABORTED at once and the history is left as it was', async () => {
    const aux = await serve([], hang)
    const w = world(dir, 'cancel-compression')
    const store = await w.open()
    const session = await store.createSession({ source: 'cli', systemPrompt: 'stored prompt' })
    await store.appendMessages(
      session.id,
      Array.from({ length: 30 }, (_, i) => ({
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `Turn ${i}: ${'notes about the deployment pipeline and its caches '.repeat(12)}`,
      })),
    )
    const events: AgentEvent[] = []
    const controller = new AbortController()
    const auxProvider: ModelProvider = localProvider('openai', aux.origin, {
      maxRetries: 0,
      timeoutSeconds: 120,
    })
    const agent = w.agent(store, createOfflineModel(), {
      auxProvider,
      config: agentConfig({
        main: { contextWindow: 4_000 },
        compressor: { tailProtectTokens: 500, replyBudgetTokens: 0 },
      }),
      onEvent: (event) => {
        events.push(event)
        // Fire once the summariser's request is in flight (the server never answers it).
        if (event.type === 'context' && event.due) {
          const poll = () => (aux.requests.length > 0 ? controller.abort() : setTimeout(poll, 5))
          poll()
        }
      },
    })
    await agent.resume(session.id)
    await expect(agent.run('What did we decide?', { signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    })
    expect(aux.requests).toHaveLength(1)
    expect(events.find((e) => e.type === 'compression')).toMatchObject({
      status: 'aborted',
      childSessionId: null,
    })
    expect(agent.sessionId).toBe(session.id)
    expect(await store.getLineage(session.id)).toHaveLength(1)
    expect(await store.getEpisodes(session.id)).toEqual([])
    expect((await store.getMessages(session.id)).at(-1)).toEqual({
      role: 'user',
      content: 'What did we decide?',
    })
    expect((await store.usage()).byPurpose.compression).toBeUndefined()
  })
})

describe('the session_search result', () => {
  it('carries the hit and the messages around it as data, and the model reads their rendering', async () => {
    const w = world(dir, 'search-format')
    const store = await w.open()
    const past = await store.createSession({ source: 'cli' })
    await store.appendMessages(past.id, [
      { role: 'user', content: 'Where do the nightly backups go?' },
      { role: 'assistant', content: 'The nightly backups go to the bucket s3://ops-backups.' },
      { role: 'user', content: 'Thanks.' },
    ])
    const current = await store.createSession({ source: 'cli' })
    const tool = createSessionSearchTool(store, { maxTokens: 5_000 })
    const result = await runTool(tool, { query: 'ops-backups bucket' }, { sessionId: current.id })
    if (!result.ok) throw new Error(result.error.message)
    expect(toolResultText(result)).toBe(renderSessionSearch(result.data))
    if (result.data.kind !== 'hits') throw new Error(`a query answered ${result.data.kind}`)
    const [hit] = result.data.hits
    expect(hit).toMatchObject({ kind: 'message', sessionId: past.id, source: 'cli' })
    const messages =
      hit?.kind === 'message' ? hit.messages.map(({ role, text, hit }) => ({ role, text, hit })) : []
    expect(messages).toContainEqual({
      role: 'assistant',
      text: 'The nightly backups go to the bucket s3://ops-backups.',
      hit: true,
    })
    expect(messages).toContainEqual({ role: 'user', text: 'Where do the nightly backups go?', hit: false })
    expect(toolResultText(result)).toContain(
      '> assistant: The nightly backups go to the bucket s3://ops-backups.',
    )
  })
})
