import type { ChatMessage } from '@engram/core'
import { afterEach, describe, expect, it } from 'vitest'
import { localProvider, OPENAI_KEY, streamedChat } from './providers-helpers.ts'
import { type LocalServer, startServer } from './servers/http.ts'
import { openaiAnswer } from './servers/openai.ts'

const tools = [
  {
    name: 'session_search',
    description: 'Search past sessions',
    parameters: { type: 'object' as const, properties: { query: { type: 'string' } }, required: ['query'] },
  },
]

const history: ChatMessage[] = [
  { role: 'user', content: 'what did I say about the database?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'session_search', arguments: '{"query":"database"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'You said: PostgreSQL 16 on port 5433' },
]

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('OpenAI-compatible provider (real openai SDK, local server)', () => {
  it('sends the system prompt first, the history unchanged and the tools as functions; reads a JSON answer', async () => {
    server = await startServer([
      openaiAnswer({ text: 'PostgreSQL 16, port 5433.', usage: { prompt: 120, completion: 9, cached: 64 } }),
    ])
    const provider = localProvider('openai', server.origin)
    const result = await provider.chat({
      system: 'You are Engram.',
      messages: history,
      tools,
      maxTokens: 300,
    })

    expect(result.message).toEqual({ role: 'assistant', content: 'PostgreSQL 16, port 5433.' })
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 9, cacheReadTokens: 64 })
    const [request] = server.requests
    expect(request?.path).toBe('/v1/chat/completions')
    expect(request?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`)
    const body = request?.body as {
      messages: ChatMessage[]
      tools: unknown[]
      max_tokens: number
      stream?: boolean
      model: string
    }
    expect(body.model).toBe('gpt-local')
    expect(body.messages).toEqual([{ role: 'system', content: 'You are Engram.' }, ...history])
    expect(body.tools).toEqual([{ type: 'function', function: tools[0] }])
    expect(body.max_tokens).toBe(300)
    expect(body.stream).toBeFalsy()
  })

  it('streams text deltas and reassembles tool calls from their argument fragments; usage comes from the last chunk', async () => {
    const calls = [
      {
        id: 'call_a',
        type: 'function' as const,
        function: { name: 'memory', arguments: '{"action":"add","target":"user","content":"likes tea"}' },
      },
      {
        id: 'call_b',
        type: 'function' as const,
        function: { name: 'session_search', arguments: '{"query":"部署 端口"}' },
      },
    ]
    server = await startServer([
      openaiAnswer({
        text: 'Let me note that and look it up.',
        toolCalls: calls,
        usage: { prompt: 300, completion: 41 },
      }),
    ])
    const { text, result } = await streamedChat(localProvider('openai', server.origin), {
      system: 's',
      messages: [{ role: 'user', content: 'hi' }],
      tools,
    })
    expect(text).toBe('Let me note that and look it up.')
    expect(result.message).toEqual({
      role: 'assistant',
      content: 'Let me note that and look it up.',
      tool_calls: calls,
    })
    expect(result.finishReason).toBe('tool_calls')
    expect(result.usage).toEqual({ inputTokens: 300, outputTokens: 41 })
    const body = server.requests[0]?.body as { stream: boolean; stream_options: unknown }
    expect(body.stream).toBe(true)
    expect(body.stream_options).toEqual({ include_usage: true })
  })

  it('a tool-call answer without text has null content, as the store keeps it', async () => {
    const call = { id: 'call_x', type: 'function' as const, function: { name: 'memory', arguments: '{}' } }
    server = await startServer([openaiAnswer({ toolCalls: [call], usage: { prompt: 5, completion: 3 } })])
    const result = await localProvider('openai', server.origin).chat({
      system: 's',
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(result.message).toEqual({ role: 'assistant', content: null, tool_calls: [call] })
  })
})
