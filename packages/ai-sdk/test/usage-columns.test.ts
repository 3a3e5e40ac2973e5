import { createAnthropic } from '@ai-sdk/anthropic'
import { openStore } from '@engram/core'
import { generateText, streamText, wrapLanguageModel } from 'ai'
import { afterEach, expect, it } from 'vitest'
import { anthropicAnswer } from '../../agent/test/servers/anthropic.ts'
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

it('records cache reads and cache writes in their own columns when the provider reports both (Anthropic)', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  // Distinct figures on each call, so a read recorded as a write (or the reverse) cannot add up the same.
  const server = await startServer([
    anthropicAnswer({ text: 'First.', usage: { input: 10, output: 5, cacheRead: 300, cacheWrite: 40 } }),
    anthropicAnswer({ text: 'Second.', usage: { input: 12, output: 7, cacheRead: 1_000, cacheWrite: 2 } }),
  ])
  cleanups.push(() => server.close())
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const anthropic = createAnthropic({ baseURL: `${server.origin}/v1`, apiKey: 'sk-ant-local' })
  const model = wrapLanguageModel({
    model: anthropic('claude-sonnet-4-5'),
    middleware: engramMiddleware({ store, sessionId: 'anthropic-cache' }),
  })
  expect((await generateText({ model, prompt: 'one' })).text).toBe('First.')
  expect(await streamText({ model, prompt: 'two' }).text).toBe('Second.')
  const { total } = await store.usage({ sessionId: 'anthropic-cache' })
  expect(total).toMatchObject({ calls: 2, outputTokens: 12, cacheReadTokens: 1_300, cacheWriteTokens: 42 })
  // The whole prompt, cached parts included: what the context measured.
  expect(total.inputTokens).toBe(10 + 300 + 40 + 12 + 1_000 + 2)
})
