import type { ChatMessage } from '@engram/core/types'

/** What the summariser is asked to do; everything in it has already been through {@link redactSecrets}. */
export interface SummaryRequest {
  /** Instructions for the summarising model (send as its system prompt): template, language, length, mode. */
  system: string
  /** The material (send as the user message): the previous summary, if any, and a transcript of the turns. */
  prompt: string
  /** The turns being folded into the summary, redacted, with long texts clipped. */
  messages: ChatMessage[]
  /** The summary from an earlier pass, to be updated with `messages`; null on the first pass. */
  previousSummary: string | null
  /** Upper bound for the answer; pass it as the model's `max_tokens`. */
  maxTokens: number
  /** The conversation's language when it is recognisable from its script (e.g. 'Chinese'), else null. */
  language: string | null
}

/** How one summary call is made: `signal` is the caller's cancellation (e.g. the agent run's). */
export interface SummarizeOptions {
  signal?: AbortSignal
}

/**
 * Writes summaries; the agent implements it on a cheap model. Throw a {@link SummarizerAbort} (or an error
 * that {@link isAuthOrNetworkError} recognises) to abort compression: the history is then left unchanged.
 * Any other error, or an empty answer, makes the compressor fall back to a local summary. Stop when
 * `options.signal` fires; a cancelled compression also aborts.
 */
export interface Summarizer {
  summarize(request: SummaryRequest, options?: SummarizeOptions): Promise<string>
}

/**
 * What a {@link Summarizer} throws to abort compression instead of getting a local summary: the next call
 * would fail the same way (credentials, network) or the caller cancelled. `cause` holds the original error.
 */
export class SummarizerAbort extends Error {
  override readonly name = 'SummarizerAbort'
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'ECONNRESET',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
])
const ABORTING_NAMES = new Set([
  'AuthenticationError',
  'PermissionDeniedError',
  'APIConnectionError',
  'APIConnectionTimeoutError',
])
const AUTH_STATUSES = new Set([401, 403])

/**
 * True for failures that a local summary cannot paper over because the next model call would fail the same
 * way: authentication (HTTP 401/403, the SDKs' `AuthenticationError`/`PermissionDeniedError`) and network
 * errors (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`, `ECONNRESET`, …, `APIConnectionError`), looked for on the
 * error and along its `cause` chain (fetch wraps socket errors).
 */
export function isAuthOrNetworkError(error: unknown): boolean {
  const seen = new Set<unknown>()
  let current = error
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const { status, code, name } = current as { status?: unknown; code?: unknown; name?: unknown }
    if (typeof status === 'number' && AUTH_STATUSES.has(status)) return true
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true
    if (typeof name === 'string' && ABORTING_NAMES.has(name)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
