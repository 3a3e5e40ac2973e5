import { openStore } from '@engram/core'
import { generateText, streamText, wrapLanguageModel } from 'ai'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { engramMiddleware } from '../src/index.ts'
import { localModel, tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('records cache-read tokens (prompt_tokens_details.cached_tokens) as cache reads, never as cache writes', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const server = await startServer([
    openaiAnswer({ text: 'First.', usage: { prompt: 100, completion: 5, cached: 80 } }),
    openaiAnswer({ text: 'Second.', usage: { prompt: 120, completion: 7, cached: 96 } }),
  ])
  cleanups.push(() => server.close())
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const model = wrapLanguageModel({
    model: localModel(server.origin),
    middleware: engramMiddleware({ store, sessionId: 'cached' }),
  })
  expect((await generateText({ model, prompt: 'one' })).text).toBe('First.')
  expect(await streamText({ model, prompt: 'two' }).text).toBe('Second.')
  expect((await store.usage({ sessionId: 'cached' })).total).toEqual({
    calls: 2,
    inputTokens: 220,
    outputTokens: 12,
    cacheReadTokens: 176,
    cacheWriteTokens: 0,
    costUsd: 0,
  })
})
