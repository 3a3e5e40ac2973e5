import { type Summarizer, SummarizerAbort } from '@engram/compressor'
import { ProviderError, type ProviderErrorCode } from './errors.ts'
import type { ChatRequest, ChatResult, ModelProvider } from './types.ts'

/** Sees every finished call with its wall-clock latency, e.g. to record usage. */
export type CallObserver = (result: ChatResult, latencyMs: number) => Promise<void> | void

/** One model call, timed; `observe` runs before the result is returned (so usage is recorded first). */
export async function timedChat(
  provider: ModelProvider,
  request: ChatRequest,
  observe?: CallObserver,
): Promise<ChatResult> {
  const started = performance.now()
  const result = await provider.chat(request)
  await observe?.(result, Math.round(performance.now() - started))
  return result
}

/** Failures the next call would repeat (or a cancelled run), so a local summary would not help: compression must abort. */
const ABORTING_CODES = new Set<ProviderErrorCode>([
  'ABORTED',
  'NO_API_KEY',
  'AUTH',
  'PERMISSION',
  'TIMEOUT',
  'NETWORK',
  'PROXY',
])

/**
 * The compressor's {@link Summarizer} on a (cheap, auxiliary) model: the request's instructions as the
 * system prompt, its material as the one user message, `maxTokens` as the answer's bound. Each call goes
 * to `observe` (the agent records it as `compression` usage); the caller's signal cancels it.
 * Authentication, timeout, network and proxy failures and cancellation throw a {@link SummarizerAbort}, so
 * the compressor aborts and leaves the history alone.
 */
export function createSummarizer(provider: ModelProvider, observe?: CallObserver): Summarizer {
  return {
    async summarize(request, options = {}) {
      try {
        const result = await timedChat(
          provider,
          {
            system: request.system,
            messages: [{ role: 'user', content: request.prompt }],
            maxTokens: request.maxTokens,
            ...(options.signal ? { signal: options.signal } : {}),
          },
          observe,
        )
        return typeof result.message.content === 'string' ? result.message.content : ''
      } catch (error) {
        if (error instanceof ProviderError && ABORTING_CODES.has(error.code))
          throw new SummarizerAbort(error.message, { cause: error })
        throw error
      }
    },
  }
}
