import type { ChatMessage, Store, StoredMessage } from '@engram/core'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { expectTypeOf, it } from 'vitest'

// Type-level: `tsc` (pnpm typecheck) fails if @engram/core's message types stop fitting the pinned SDK.
it("store.getMessages() is assignable to openai's ChatCompletionMessageParam[] without a cast", () => {
  expectTypeOf<Awaited<ReturnType<Store['getMessages']>>>().toExtend<ChatCompletionMessageParam[]>()
  expectTypeOf<ChatMessage[]>().toExtend<ChatCompletionMessageParam[]>()
  expectTypeOf<StoredMessage>().toExtend<ChatCompletionMessageParam>()
  const history: ChatMessage[] = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: [{ type: 'text', text: 'look' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', content: 'ok', tool_call_id: 'c1' },
  ]
  const request: ChatCompletionMessageParam[] = history
  expectTypeOf(request).toEqualTypeOf<ChatCompletionMessageParam[]>()
})

it('narrows by role: tool messages carry their call id, assistant messages their calls', () => {
  expectTypeOf<Extract<ChatMessage, { role: 'tool' }>['tool_call_id']>().toEqualTypeOf<string>()
  expectTypeOf<Extract<ChatMessage, { role: 'assistant' }>['tool_calls']>().toExtend<unknown[] | undefined>()
  // @ts-expect-error a system message has no tool calls
  const wrong: ChatMessage = { role: 'system', content: 'x', tool_calls: [] }
  expectTypeOf(wrong).toExtend<ChatMessage>()
})
