import { redactSecrets } from '@engram/compressor'
import { maskUrl, withoutUrlSecrets } from '../config/mask.ts'
import { type ProxySetting, StalledAnswerError } from './http.ts'
import type { ChatResult } from './types.ts'

type ErrorClass = abstract new (...args: never[]) => Error

/**
 * The error classes of the SDK a call went through (the `OpenAI` and `Anthropic` client classes carry the
 * same four as statics). Passed in, not imported, so this module never loads a vendor SDK.
 */
export interface SdkErrors {
  APIError: ErrorClass
  APIUserAbortError: ErrorClass
  APIConnectionTimeoutError: ErrorClass
  APIConnectionError: ErrorClass
}

export type ProviderErrorCode =
  | 'NO_API_KEY'
  | 'AUTH'
  | 'PERMISSION'
  | 'NOT_FOUND'
  | 'MODEL_NOT_FOUND'
  | 'BAD_REQUEST'
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'TIMEOUT'
  | 'PROXY'
  | 'NETWORK'
  | 'BAD_RESPONSE'
  | 'ABORTED'
  | 'INVALID_CONFIG'

/**
 * A model call that failed for good (after the retries): `message` is one actionable line naming the
 * endpoint, the cause and the fix, with the key masked; `status` is the HTTP status when there was one and
 * `cause` the SDK's error (so the compressor's `isAuthOrNetworkError` still recognises it).
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError'
  readonly code: ProviderErrorCode
  readonly status: number | undefined
  /**
   * The answer as far as it streamed before the failure (`finishReason: 'interrupted'`), when any text had
   * arrived: the caller already showed it, and keeps it as the interrupted answer.
   */
  partial?: ChatResult

  constructor(code: ProviderErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.code = code
    this.status = options.status
  }
}

/**
 * Throws `ABORTED` when `signal` has fired, so every cancellation (of a run, a tool or a model call) reads
 * the same; an SDK stream cut by an abort also ends quietly, as if complete, and is caught here.
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ProviderError('ABORTED', 'Cancelled: the abort signal fired.')
}

/** Where a provider sends its calls; what its error messages talk about. */
export interface Endpoint {
  provider: 'openai' | 'anthropic'
  baseUrl: string
  /** The path the SDK appends to the base URL for a chat call. */
  chatPath: string
  model: string
  apiKey: string
  apiKeySource: string
  proxy: ProxySetting | null
  timeoutSeconds: number
  maxRetries: number
}

/** The chat URL as messages show it: secrets in the base URL masked. */
function target(endpoint: Pick<Endpoint, 'baseUrl' | 'chatPath'>): string {
  return `${maskUrl(endpoint.baseUrl)}${endpoint.chatPath}`
}

/** Server text with the key and the base URL's secret parts removed, in case the server echoed them. */
function scrubbed(text: string, endpoint: Endpoint): string {
  const masked = endpoint.apiKey ? text.split(endpoint.apiKey).join(maskKey(endpoint.apiKey)) : text
  return redactSecrets(withoutUrlSecrets(masked, endpoint.baseUrl))
}

/** `sk-pro…wxyz (51 chars)`: enough to tell keys apart, never enough to use one. Short keys show nothing. */
export function maskKey(key: string): string {
  if (key.length < 20) return `(${key.length} chars, hidden)`
  return `${key.slice(0, 6)}…${key.slice(-4)} (${key.length} chars)`
}

/** Hints for credentials of the wrong kind: an OAuth token as an API key, or another vendor's key. */
function credentialHint(provider: Endpoint['provider'], key: string): string | null {
  if (key.startsWith('sk-ant-oat')) {
    return 'This is a Claude OAuth token (sk-ant-oat…, from a subscription login), not an API key: the API takes keys that start with sk-ant-api, created at console.anthropic.com.'
  }
  if (key.startsWith('eyJ')) {
    return 'This looks like an OAuth access token (a JWT), not an API key: create an API key for this endpoint and use that.'
  }
  if (provider === 'anthropic' && key.startsWith('sk-') && !key.startsWith('sk-ant-')) {
    return 'This looks like an OpenAI-style key sent to the Anthropic API: use an Anthropic key (sk-ant-api…), or set the provider to openai for an OpenAI-compatible endpoint.'
  }
  if (provider === 'openai' && key.startsWith('sk-ant-')) {
    return 'This is an Anthropic key sent to an OpenAI-compatible endpoint: set the provider to anthropic, or use a key issued by this endpoint.'
  }
  return null
}

interface ErrorBody {
  message?: unknown
  code?: unknown
  type?: unknown
  error?: ErrorBody
}

/** The server's own words, first line only, secrets removed. */
function serverText(error: unknown, endpoint: Endpoint): string {
  const body = (error as { error?: ErrorBody }).error
  const raw =
    (typeof body?.error?.message === 'string' && body.error.message) ||
    (typeof body?.message === 'string' && body.message) ||
    (error instanceof Error ? error.message : String(error))
  // The SDKs prefix the status to the body's text; the messages below say the status themselves.
  const line = (raw.split('\n')[0] ?? '').replace(/^\d{3} /, '')
  return scrubbed(line, endpoint).slice(0, 200)
}

function serverCodes(error: unknown): string[] {
  const body = (error as { error?: ErrorBody }).error
  return [body?.code, body?.type, body?.error?.code, body?.error?.type].filter(
    (v): v is string => typeof v === 'string',
  )
}

function isModelNotFound(error: unknown, endpoint: Endpoint): boolean {
  const codes = serverCodes(error)
  if (codes.includes('model_not_found')) return true
  const text = serverText(error, endpoint).toLowerCase()
  return (
    /\bmodel\b/.test(text) &&
    (text.includes('not found') ||
      text.includes('does not exist') ||
      text.includes('invalid') ||
      text.includes(endpoint.model.toLowerCase()))
  )
}

/** What to change in a base URL that answered 404 for the chat path. */
function baseUrlHint(endpoint: Pick<Endpoint, 'provider' | 'baseUrl'>): string {
  const url = new URL(maskUrl(endpoint.baseUrl))
  const path = url.pathname.replace(/\/+$/, '')
  const withPath = (p: string) => `${url.origin}${p}`
  if (/\/v1\/v1$/.test(path) || path.includes('/v1/v1/')) {
    return `The path has a doubled /v1: try ${withPath(path.replace('/v1/v1', '/v1'))}.`
  }
  if (endpoint.provider === 'anthropic') {
    return path.endsWith('/v1')
      ? `The Anthropic SDK adds /v1/messages itself, so the base URL must not end in /v1: try ${withPath(path.slice(0, -3))}.`
      : 'The Anthropic SDK adds /v1/messages to the base URL: check the gateway’s documented base URL.'
  }
  return path.endsWith('/v1')
    ? `The SDK adds /chat/completions to it; if the gateway documents a base URL without /v1, drop it: try ${withPath(path.slice(0, -3)) || url.origin}.`
    : `The path has no /v1, which most OpenAI-compatible APIs need: try ${withPath(`${path}/v1`)}.`
}

function networkCode(error: unknown): string | null {
  const seen = new Set<unknown>()
  let current = error
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return null
}

function maskedProxy(proxy: ProxySetting): string {
  return maskUrl(proxy.url)
}

/** The {@link StalledAnswerError} behind `error` (the SDKs wrap what fetch or the body threw), if any. */
function stallOf(error: unknown): StalledAnswerError | null {
  const seen = new Set<unknown>()
  let current = error
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    if (current instanceof StalledAnswerError) return current
    seen.add(current)
    current = (current as { cause?: unknown }).cause
  }
  return null
}

/** A failure with no HTTP status: an error event inside a stream, a malformed stream, or a refused request. */
function withoutStatus(error: unknown, endpoint: Endpoint, said: string, sdk?: SdkErrors): ProviderError {
  const where = target(endpoint)
  if (sdk && error instanceof sdk.APIError) {
    return new ProviderError(
      'SERVER_ERROR',
      `${endpoint.provider}: ${where} sent an error in the middle of its answer (${said}). Retry; if it persists, the service is having trouble.`,
      { cause: error },
    )
  }
  if (error instanceof SyntaxError) {
    return new ProviderError(
      'BAD_RESPONSE',
      `${endpoint.provider}: ${where} streamed malformed JSON (${said}).`,
      {
        cause: error,
      },
    )
  }
  return new ProviderError(
    'NETWORK',
    `${endpoint.provider}: the connection to ${where} failed before the answer was complete (${said}). Retry; if it persists, check the network and any proxy between you and the endpoint.`,
    { cause: error },
  )
}

/**
 * Turns an SDK error (after the SDK's own retries) into a {@link ProviderError} whose message says what was
 * called, what went wrong and what to change. Never includes the key itself. `sdk` is the SDK the call went
 * through (absent when it never loaded: then no error can be one of its classes).
 */
export function toProviderError(error: unknown, endpoint: Endpoint, sdk?: SdkErrors): ProviderError {
  if (error instanceof ProviderError) return error
  const status = (error as { status?: unknown }).status
  const where = target(endpoint)
  const said = serverText(error, endpoint)
  const tries = `${endpoint.maxRetries + 1} attempt(s)`
  const stall = stallOf(error)
  if (stall) {
    return new ProviderError(
      'TIMEOUT',
      `${endpoint.provider}: ${where} started answering, then ${stall.message}. Check that the endpoint (or a proxy in between) is healthy and retry, or raise api.timeout_seconds.`,
      { cause: error },
    )
  }
  if (
    (sdk && error instanceof sdk.APIUserAbortError) ||
    (error as { name?: unknown }).name === 'AbortError'
  ) {
    return new ProviderError('ABORTED', 'Cancelled: the abort signal fired.', { cause: error })
  }
  if (sdk && error instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderError(
      'TIMEOUT',
      `${endpoint.provider}: no answer from ${where} within ${endpoint.timeoutSeconds} s (${tries}). Check that the endpoint is up, or raise api.timeout_seconds.`,
      { cause: error },
    )
  }
  if (sdk && error instanceof sdk.APIConnectionError) {
    const code = networkCode(error) ?? 'connection error'
    if (endpoint.proxy) {
      return new ProviderError(
        'PROXY',
        `${endpoint.provider}: local proxy failed: could not reach ${where} through the proxy ${maskedProxy(endpoint.proxy)} set in ${endpoint.proxy.source} (${code}, ${tries}). Start the proxy, correct ${endpoint.proxy.source}, or unset it (or list the host in NO_PROXY).`,
        { cause: error },
      )
    }
    return new ProviderError(
      'NETWORK',
      `${endpoint.provider}: could not connect to ${where} (${code}, ${tries}). Check the base URL and your network; set HTTPS_PROXY if you need a proxy.`,
      { cause: error },
    )
  }
  if (typeof status !== 'number') return withoutStatus(error, endpoint, said, sdk)
  const options = { status, cause: error }
  if (status === 401) {
    const key = endpoint.apiKey
    const hint = credentialHint(endpoint.provider, key)
    return new ProviderError(
      'AUTH',
      `${endpoint.provider}: ${where} rejected the API key (401: ${said}). The key was read from ${endpoint.apiKeySource}: ${maskKey(key)}. ${hint ?? `Set ${endpoint.apiKeySource} to a valid key for this endpoint.`}`,
      options,
    )
  }
  if (status === 403) {
    const hint = credentialHint(endpoint.provider, endpoint.apiKey)
    return new ProviderError(
      'PERMISSION',
      `${endpoint.provider}: the key from ${endpoint.apiKeySource} (${maskKey(endpoint.apiKey)}) may not use ${where} or model ${endpoint.model} (403: ${said}). ${hint ?? 'Check the key’s project, region and model access.'}`,
      options,
    )
  }
  if ((status === 404 || status === 400) && isModelNotFound(error, endpoint)) {
    return new ProviderError(
      'MODEL_NOT_FOUND',
      `${endpoint.provider}: the model ${JSON.stringify(endpoint.model)} is not available at ${maskUrl(endpoint.baseUrl)} (${status}: ${said}). Set the model id (HERMES_MODEL or models.main.model_id) to one the endpoint lists.`,
      options,
    )
  }
  if (status === 404) {
    return new ProviderError(
      'NOT_FOUND',
      `${endpoint.provider}: ${where} answered 404 (${said}): the base URL ${maskUrl(endpoint.baseUrl)} is probably wrong. ${baseUrlHint(endpoint)}`,
      options,
    )
  }
  if (status === 429) {
    return new ProviderError(
      'RATE_LIMITED',
      `${endpoint.provider}: still rate-limited by ${where} after ${tries} (429: ${said}). Wait and retry, or lower the request rate or raise the account's limits.`,
      options,
    )
  }
  if (status >= 500) {
    return new ProviderError(
      'SERVER_ERROR',
      `${endpoint.provider}: ${where} kept failing with a server error after ${tries} (${status}: ${said}). The service is having trouble; retry later.`,
      options,
    )
  }
  return new ProviderError(
    'BAD_REQUEST',
    `${endpoint.provider}: ${where} refused the request for model ${endpoint.model} (${status}: ${said}).`,
    options,
  )
}

/** A 200 answer that is not what the API promises: shows the start of the raw body, which tells why. */
export function badResponse(endpoint: Endpoint, what: string, body: unknown): ProviderError {
  const raw = (typeof body === 'string' ? body : JSON.stringify(body)) ?? String(body)
  const flat = raw.slice(0, 300).replace(/\s+/g, ' ').trim()
  const start = scrubbed(flat, endpoint) + (raw.length > 300 ? '…' : '')
  return new ProviderError(
    'BAD_RESPONSE',
    `${endpoint.provider}: ${target(endpoint)} answered 200 but ${what}; the body starts: ${start || '(empty)'} — the base URL probably points at a web page or a different API: check it.`,
  )
}
