import { openStore } from '@engram/core'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { runReadmeExample } from '../../openai-agents/test/readme-example.ts'
import { createChatStore } from '../src/index.ts'
import { tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('the README example runs as written against a local server, twice on one database', async () => {
  const usage = { prompt: 20, completion: 5 }
  const server = await startServer([
    openaiAnswer({ text: 'Noted.', usage }),
    openaiAnswer({ text: 'Noted.', usage }),
  ])
  cleanups.push(() => server.close())
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const env = { OPENAI_BASE_URL: `${server.origin}/v1` }
  const first = await runReadmeExample(new URL('../', import.meta.url), world.dir, env)
  expect(first.lines).toBeLessThanOrEqual(15)
  // The user message, in the chat and in the recorded call.
  expect(first.stdout.trim()).toBe('Noted. 2')
  expect((await runReadmeExample(new URL('../', import.meta.url), world.dir, env)).stdout.trim()).toBe(
    'Noted. 4',
  )
  // The second run loaded the first chat and sent it along.
  const sent = server.requests[1]?.body as { messages: { role: string }[] }
  expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
  const store = await openStore({ url: `${world.dir}/data/engram.db` })
  cleanups.push(() => store.close())
  expect((await createChatStore({ store }).loadChat('chat-1')).map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
  ])
})
