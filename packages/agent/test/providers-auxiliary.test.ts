import { compress, DEFAULT_COMPRESSOR_CONFIG, windowBudget } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import { afterEach, describe, expect, it } from 'vitest'
import { createProvider, createSummarizer, type ModelProvider } from '../src/index.ts'
import { OFFLINE_MODEL_ID } from '../src/providers/offline.ts'
import { localProvider } from './providers-helpers.ts'
import { anthropicAnswer } from './servers/anthropic.ts'
import { bodyOf, hang, type LocalServer, startServer } from './servers/http.ts'
import { openaiAnswer, openaiError } from './servers/openai.ts'

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const conversation: ChatMessage[] = Array.from({ length: 12 }, (_, i) => ({
  role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content: `Turn ${i}: ${'details about the migration plan '.repeat(20)}`,
}))
const squeeze = (provider: ModelProvider, observe?: Parameters<typeof createSummarizer>[1]) =>
  compress(conversation, {
    window: 16_000,
    summarizer: createSummarizer(provider, observe),
    config: { headProtectMessages: 1, tailProtectTokens: 200, replyBudgetTokens: 0 },
  })

describe('the summariser on an auxiliary model', () => {
  it('sends the instructions as the system prompt and the material as one user message, bounded by maxTokens; each call is observed', async () => {
    server = await startServer([
      anthropicAnswer({ text: '## Goal\nMigrate the database.', usage: { input: 900, output: 12 } }),
    ])
    const seen: number[] = []
    const result = await squeeze(localProvider('anthropic', server.origin), (call) => {
      seen.push(call.usage.inputTokens)
    })
    expect(result.report.status).toBe('compressed')
    expect(result.report.usedFallback).toBe(false)
    expect(result.summary).toBe('## Goal\nMigrate the database.')
    expect(seen).toEqual([900])
    const body = bodyOf<{
      system: { text: string }[]
      messages: { role: string; content: { text: string }[] }[]
      max_tokens: number
    }>(server, 0)
    expect(body.system[0]?.text).toContain('## Critical context')
    expect(body.messages).toHaveLength(1)
    expect(body.messages[0]?.content[0]?.text).toContain('<conversation>')
    // The summary budget scales with the window: min(summary_max_tokens, a share of the trigger).
    const budget = windowBudget(16_000, {
      ...DEFAULT_COMPRESSOR_CONFIG,
      replyBudgetTokens: 0,
      tailProtectTokens: 200,
    })
    expect(body.max_tokens).toBe(budget.summaryTokens)
    expect(body.max_tokens).toBeLessThanOrEqual(1_500)
  })

  it('an authentication failure aborts the compression (history untouched)', async () => {
    server = await startServer([openaiError(401, 'Incorrect API key provided.', 'invalid_api_key')])
    const result = await squeeze(localProvider('openai', server.origin))
    expect(result.report.status).toBe('aborted')
    expect(result.messages).toEqual(conversation)
  })

  it('a timeout aborts the compression too', async () => {
    server = await startServer([], hang)
    const result = await squeeze(
      localProvider('openai', server.origin, { timeoutSeconds: 0.2, maxRetries: 0 }),
    )
    expect(result.report.status).toBe('aborted')
    expect(result.report.reason).toContain('no answer from')
  })

  it('a model that keeps failing otherwise (400) gets the local fallback summary', async () => {
    server = await startServer([openaiError(400, 'max_tokens is too large for this model', 'invalid_value')])
    const result = await squeeze(localProvider('openai', server.origin))
    expect(result.report.status).toBe('compressed')
    expect(result.report.usedFallback).toBe(true)
    expect(result.report.reason).toContain('max_tokens is too large')
  })
})

describe('createProvider', () => {
  const model = { modelId: 'm-1', maxTokens: 100, contextWindow: 1000 }

  it('builds the provider the config names', async () => {
    expect(createProvider({ provider: 'offline', timeoutSeconds: 5 }, model).model).toBe(OFFLINE_MODEL_ID)
    server = await startServer([openaiAnswer({ text: 'hi', usage: { prompt: 1, completion: 1 } })])
    const openai = createProvider(
      {
        provider: 'openai',
        apiKey: 'sk-local-key-0123456789abcdef',
        baseUrl: `${server.origin}/v1`,
        timeoutSeconds: 5,
      },
      model,
      {},
    )
    expect(openai.name).toBe('openai')
    await openai.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] })
    expect(bodyOf<{ model: string }>(server, 0).model).toBe('m-1')
    const anthropic = createProvider(
      { provider: 'anthropic', apiKey: 'sk-ant-api03-x', timeoutSeconds: 5 },
      model,
      {},
    )
    expect([anthropic.name, anthropic.model]).toEqual(['anthropic', 'm-1'])
  })

  it('no key: NO_API_KEY naming where the key should come from', () => {
    expect(() =>
      createProvider({ provider: 'openai', apiKeySource: 'OPENAI_API_KEY', timeoutSeconds: 5 }, model),
    ).toThrow(/no API key \(OPENAI_API_KEY is not set\)/)
    expect(() => createProvider({ provider: 'anthropic', timeoutSeconds: 5 }, model)).toThrow(
      /ANTHROPIC_API_KEY/,
    )
  })

  it('a base URL that is not a URL is refused before any call', () => {
    expect(() =>
      createProvider(
        { provider: 'openai', apiKey: 'sk-x', baseUrl: 'api.example.com/v1', timeoutSeconds: 5 },
        model,
      ),
    ).toThrow(/is not a URL/)
  })
})
