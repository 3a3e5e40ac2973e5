import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { openStore } from '@engram/core'
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  convertToModelMessages,
  createIdGenerator,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithToolCalls,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
} from 'ai'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { createChatStore } from '../src/index.ts'
import { localModel, tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const usage = { prompt: 30, completion: 3 }
// A client-side tool: the browser answers it with addToolResult.
const tools = {
  confirm: tool({ description: 'Asks the user.', inputSchema: z.object({ question: z.string() }) }),
}

/** The state a UI framework keeps for the AI SDK's chat (what `useChat` holds), here in plain fields. */
class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  messages: UIMessage[] = []
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message]
  }
  popMessage = () => {
    this.messages = this.messages.slice(0, -1)
  }
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m))
  }
  snapshot = <T>(thing: T): T => structuredClone(thing)
}
class Chat extends AbstractChat<UIMessage> {}

it('the AI SDK chat client, answering a tool with addToolResult, leaves one stored message per id, as shown', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const chats = createChatStore({ store })
  const model = await startServer([
    openaiAnswer({
      toolCalls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'confirm', arguments: '{"question":"Deploy?"}' },
        },
      ],
      usage,
    }),
    openaiAnswer({ text: 'Deploying production.', usage }),
  ])
  cleanups.push(() => model.close())

  // The app's route, as in the AI SDK's docs: the client's messages in, a UI message stream out, the
  // chat saved when it finishes.
  const route = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { id, messages } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id: string
      messages: UIMessage[]
    }
    const result = streamText({
      model: localModel(model.origin),
      messages: await convertToModelMessages(messages),
      tools,
      stopWhen: stepCountIs(3),
    })
    result.pipeUIMessageStreamToResponse(res, {
      originalMessages: messages,
      generateMessageId: createIdGenerator({ prefix: 'msg', size: 16 }),
      onFinish: async ({ messages: all }) => {
        await chats.saveChat({ id, messages: all })
      },
    })
  })
  await new Promise<void>((resolve) => route.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>((resolve) => route.close(() => resolve())))
  const origin = `http://127.0.0.1:${(route.address() as AddressInfo).port}`

  const state = new PlainState()
  const chat: Chat = new Chat({
    id: 'chat-9',
    state,
    transport: new DefaultChatTransport({ api: `${origin}/api/chat` }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall: ({ toolCall }) => {
      // Not awaited, as the AI SDK's docs say: the chat waits for onToolCall before it goes on.
      void chat.addToolResult({ tool: 'confirm', toolCallId: toolCall.toolCallId, output: 'yes' })
    },
  })
  await chat.sendMessage({ text: 'Deploy production.' })
  // The client sends the answered call on its own; wait for that second request to finish.
  for (let i = 0; i < 400 && !(model.requests.length === 2 && state.status === 'ready'); i++) await sleep(10)
  expect(model.requests).toHaveLength(2)
  expect(state.status).toBe('ready')

  const shown = state.messages
  expect(shown.map((m) => m.role)).toEqual(['user', 'assistant'])
  const loaded = await chats.loadChat('chat-9', { tools })
  // What the user sees is what is stored: the tool answer and the text in the one assistant message.
  expect(loaded).toEqual(JSON.parse(JSON.stringify(shown)))
  expect(loaded[1]?.id).toMatch(/^msg-/)
  const confirm = loaded[1]?.parts.find((p) => p.type === 'tool-confirm')
  expect(confirm).toMatchObject({ state: 'output-available', output: 'yes' })
  expect(loaded[1]?.parts.at(-1)).toMatchObject({ type: 'text', text: 'Deploying production.' })
  // Two saves, the second an upsert of the same assistant message: no duplicated ids.
  expect(new Set(loaded.map((m) => m.id)).size).toBe(2)
  // Stored: the user message once, and the assistant message's two versions (asking, then answered).
  expect((await store.getMessages('chat-9')).map((m) => m.role)).toEqual(['user', 'assistant', 'assistant'])
})
