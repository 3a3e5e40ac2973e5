import { createAnthropicProvider } from '../src/providers/anthropic.ts'
import type { ProviderOptions } from '../src/providers/endpoint.ts'
import { createOpenAIProvider } from '../src/providers/openai.ts'
import type { ChatRequest, ModelProvider } from '../src/providers/types.ts'

export type Vendor = 'openai' | 'anthropic'

export const OPENAI_KEY = 'sk-proj-TESTKEY0123456789abcdefghijklmnop'
export const ANTHROPIC_KEY = 'sk-ant-api03-TESTKEY0123456789abcdefghijklmnop'

/** The options of a provider of `vendor` pointed at a local server; no proxy unless `env` sets one. */
export function localOptions(
  vendor: Vendor,
  origin = 'http://127.0.0.1:9',
  overrides: Partial<ProviderOptions> = {},
): ProviderOptions {
  return {
    apiKey: vendor === 'openai' ? OPENAI_KEY : ANTHROPIC_KEY,
    baseUrl: vendor === 'openai' ? `${origin}/v1` : origin,
    model: vendor === 'openai' ? 'gpt-local' : 'claude-local',
    // Far above a local answer's time even on a loaded machine (a 5 s limit fired on the first call, which
    // loads the SDK): the tests of timeouts set their own.
    timeoutSeconds: 60,
    maxRetries: 2,
    env: {},
    ...overrides,
  }
}

/** A provider of `vendor` pointed at a local server; no proxy unless `env` sets one. */
export function localProvider(
  vendor: Vendor,
  origin: string,
  overrides: Partial<ProviderOptions> = {},
): ModelProvider {
  const options = localOptions(vendor, origin, overrides)
  return vendor === 'openai' ? createOpenAIProvider(options) : createAnthropicProvider(options)
}

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejectionOf(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; status?: number }> {
  try {
    await promise
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected the call to fail, but it succeeded')
}

/** A streamed chat: the deltas `onText` saw (at least three, so it really streamed) and the result. */
export async function streamedChat(provider: ModelProvider, request: Omit<ChatRequest, 'onText'>) {
  const deltas: string[] = []
  const result = await provider.chat({ ...request, onText: (delta) => deltas.push(delta) })
  if (deltas.length < 3) throw new Error(`expected a streamed answer, got ${deltas.length} delta(s)`)
  return { text: deltas.join(''), result }
}
