import type { ContentBlock } from '@anthropic-ai/sdk/resources/messages/messages'
import type { ChatMessage, ToolCall } from '@engram/core'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { fromAnthropicContent, toAnthropicMessages } from '../src/providers/anthropic-mapping.ts'
import { ANTHROPIC_KEY, localProvider, streamedChat } from './providers-helpers.ts'
import { anthropicAnswer } from './servers/anthropic.ts'
import { type LocalServer, startServer } from './servers/http.ts'

const tools = [
  {
    name: 'memory',
    description: 'Save durable facts',
    parameters: { type: 'object' as const, properties: { action: { type: 'string' } }, required: ['action'] },
  },
]

const call = (id: string, name: string, args: string): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
})

const history: ChatMessage[] = [
  { role: 'user', content: 'remember both ports and check the old notes' },
  {
    role: 'assistant',
    content: 'On it.',
    tool_calls: [
      call('toolu_1', 'memory', '{"action":"add","content":"api port 8080"}'),
      call('toolu_2', 'session_search', '{"query":"ports"}'),
    ],
  },
  { role: 'tool', tool_call_id: 'toolu_1', content: 'saved' },
  { role: 'tool', tool_call_id: 'toolu_2', content: 'db port 5433' },
  { role: 'user', content: 'thanks' },
]

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('Anthropic provider (real @anthropic-ai/sdk, local server)', () => {
  it('sends the system prompt as its own parameter with a cache breakpoint, tools as input_schema, tool pairs as blocks', async () => {
    server = await startServer([
      anthropicAnswer({
        text: 'Both saved.',
        usage: { input: 40, output: 7, cacheRead: 900, cacheWrite: 100 },
      }),
    ])
    const result = await localProvider('anthropic', server.origin).chat({
      system: 'You are Engram.',
      messages: history,
      tools,
      maxTokens: 256,
    })
    expect(result.message).toEqual({ role: 'assistant', content: 'Both saved.' })
    expect(result.finishReason).toBe('stop')
    // Anthropic reports cached prompt tokens apart from input_tokens; the prompt is their sum.
    expect(result.usage).toEqual({
      inputTokens: 1040,
      outputTokens: 7,
      cacheReadTokens: 900,
      cacheWriteTokens: 100,
    })

    const request = server.requests[0]
    expect(request?.path).toBe('/v1/messages')
    expect(JSON.stringify(request?.headers)).toContain(ANTHROPIC_KEY)
    const body = request?.body as Record<string, unknown>
    expect(body.system).toEqual([
      { type: 'text', text: 'You are Engram.', cache_control: { type: 'ephemeral' } },
    ])
    expect(body.max_tokens).toBe(256)
    expect(body.tools).toEqual([
      { name: 'memory', description: 'Save durable facts', input_schema: tools[0]?.parameters },
    ])
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'remember both ports and check the old notes' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'On it.' },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'memory',
            input: { action: 'add', content: 'api port 8080' },
          },
          { type: 'tool_use', id: 'toolu_2', name: 'session_search', input: { query: 'ports' } },
        ],
      },
      {
        // Both results and the next user text in one user message.
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'saved' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'db port 5433' },
          { type: 'text', text: 'thanks' },
        ],
      },
    ])
  })

  it('streams text_delta and input_json_delta events into text and tool calls; usage from message_start and message_delta', async () => {
    server = await startServer([
      anthropicAnswer({
        text: 'Looking that up for you.',
        toolUses: [{ id: 'toolu_9', name: 'session_search', input: { query: '上次 部署', limit: 3 } }],
        usage: { input: 512, output: 33, cacheRead: 2048 },
      }),
    ])
    const { text, result } = await streamedChat(localProvider('anthropic', server.origin), {
      system: 's',
      messages: [{ role: 'user', content: '上次我们怎么部署的？' }],
      tools,
    })
    expect(text).toBe('Looking that up for you.')
    expect(result.message).toEqual({
      role: 'assistant',
      content: 'Looking that up for you.',
      tool_calls: [call('toolu_9', 'session_search', '{"query":"上次 部署","limit":3}')],
    })
    expect(result.finishReason).toBe('tool_calls')
    expect(result.usage).toEqual({ inputTokens: 2560, outputTokens: 33, cacheReadTokens: 2048 })
    expect(server.requests[0]?.body).toMatchObject({ stream: true })
  })

  it('round trip: a tool_use answer stored as tool_calls goes back as tool_use + tool_result with the same id', async () => {
    server = await startServer([
      anthropicAnswer({
        toolUses: [{ id: 'toolu_rt', name: 'memory', input: { action: 'add' } }],
        usage: { input: 10, output: 5 },
      }),
      anthropicAnswer({ text: 'done', usage: { input: 20, output: 1 } }),
    ])
    const provider = localProvider('anthropic', server.origin)
    const messages: ChatMessage[] = [{ role: 'user', content: 'remember that' }]
    const first = await provider.chat({ system: 's', messages, tools })
    expect(first.message.content).toBeNull()
    messages.push(first.message, { role: 'tool', tool_call_id: 'toolu_rt', content: 'ok' })
    await provider.chat({ system: 's', messages, tools })
    const second = server.requests[1]?.body as { messages: unknown[] }
    expect(second.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_rt', name: 'memory', input: { action: 'add' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_rt', content: 'ok' }] },
    ])
  })
})

describe('Anthropic mapping', () => {
  it('tool calls survive OpenAI shape → tool_use blocks → OpenAI shape (property)', () => {
    const args = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.oneof(fc.string(), fc.integer(), fc.boolean()),
      {
        maxKeys: 4,
      },
    )
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.tuple(fc.uuid(), fc.constantFrom('memory', 'session_search'), args), {
          minLength: 1,
          maxLength: 4,
        }),
        (text, calls) => {
          const toolCalls = calls.map(([id, name, input]) => call(id, name, JSON.stringify(input)))
          const [mapped] = toAnthropicMessages([{ role: 'assistant', content: text, tool_calls: toolCalls }])
          const back = fromAnthropicContent(mapped?.content as ContentBlock[])
          expect(
            back.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
          ).toEqual(calls)
          expect(back.content).toBe(text === '' ? null : text)
        },
      ),
    )
  })

  it('wraps arguments that are not a JSON object, and drops empty messages', () => {
    const messages = toAnthropicMessages([
      {
        role: 'assistant',
        content: '',
        tool_calls: [call('a', 'memory', 'not json'), call('b', 'memory', '[1,2]')],
      },
      { role: 'assistant', content: '' },
    ])
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'memory', input: { unparsed_arguments: 'not json' } },
          { type: 'tool_use', id: 'b', name: 'memory', input: { value: [1, 2] } },
        ],
      },
    ])
  })

  it('maps image parts: data URLs to base64 sources, other URLs to url sources', () => {
    const [message] = toAnthropicMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
        ],
      },
    ])
    expect(message?.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
    ])
  })
})
