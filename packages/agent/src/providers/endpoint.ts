import {
  DEFAULT_ANSWER_TIMEOUT_SECONDS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
} from '../config/defaults.ts'
import { maskUrl } from '../config/mask.ts'
import type { Endpoint } from './errors.ts'
import { ProviderError } from './errors.ts'
import { answerDeadlines, type FetchFunction, type ProxyEnv, proxyAwareFetch, proxyFor } from './http.ts'

/** What a network provider needs; the config module fills it from `EngramConfig.api` and a `ModelConfig`. */
export interface ProviderOptions {
  apiKey: string | undefined
  /** Where the key came from (`OPENAI_API_KEY`, `api.api_key`, …), named in authentication errors. */
  apiKeySource?: string
  /** Defaults to the vendor's base URL variable in `env` (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`), then its public API. */
  baseUrl?: string
  model: string
  /**
   * Per attempt: the longest wait for the answer to start and the longest silence inside it (between
   * streamed chunks, or within a JSON body); default 60.
   */
  timeoutSeconds?: number
  /** Per attempt: the longest the whole answer may take, however steadily it arrives; default 600. */
  answerTimeoutSeconds?: number
  /** Retries after the first attempt on 429, 5xx, timeouts and connection errors; default 3. */
  maxRetries?: number
  /**
   * Proxy variables (HTTP(S)_PROXY, NO_PROXY) and the vendor's base URL variable when `baseUrl` is not given;
   * defaults to `process.env`. Nothing else is read from it.
   */
  env?: ProxyEnv
}

/** The resolved endpoint plus the fetch the SDK client uses. */
export function resolveEndpoint(
  options: ProviderOptions,
  vendor: {
    provider: Endpoint['provider']
    defaultBaseUrl: string
    keyVariable: string
    baseUrlVariable: string
    chatPath: string
  },
): { endpoint: Endpoint; fetch: FetchFunction } {
  const apiKeySource = options.apiKeySource ?? vendor.keyVariable
  const apiKey = options.apiKey?.trim() ?? ''
  if (!apiKey) {
    throw new ProviderError(
      'NO_API_KEY',
      `${vendor.provider}: no API key (${apiKeySource} is not set). Set ${apiKeySource}, or pass the key as the provider's \`apiKey\` option.`,
    )
  }
  if (!options.model?.trim()) {
    throw new ProviderError(
      'MODEL_NOT_FOUND',
      `${vendor.provider}: no model id. Set HERMES_MODEL or models.main.model_id to a model the endpoint offers.`,
    )
  }
  const env = options.env ?? process.env
  const fromEnv = options.baseUrl?.trim() ? undefined : env[vendor.baseUrlVariable]?.trim() || undefined
  const baseUrl = (options.baseUrl?.trim() || fromEnv || vendor.defaultBaseUrl).replace(/\/+$/, '')
  const problem = baseUrlProblem(baseUrl, vendor.keyVariable)
  if (problem) {
    const source = fromEnv === undefined ? '' : ` (from ${vendor.baseUrlVariable})`
    throw new ProviderError(
      'INVALID_CONFIG',
      `${vendor.provider}: the base URL ${maskUrl(baseUrl)}${source} ${problem} (for example ${vendor.defaultBaseUrl}).`,
    )
  }
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS
  return {
    endpoint: {
      provider: vendor.provider,
      baseUrl,
      chatPath: vendor.chatPath,
      model: options.model,
      apiKey,
      apiKeySource,
      proxy: proxyFor(baseUrl, env),
      timeoutSeconds,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    },
    fetch: answerDeadlines(proxyAwareFetch(env), {
      idleMs: timeoutSeconds * 1000,
      totalMs:
        Math.max(timeoutSeconds, options.answerTimeoutSeconds ?? DEFAULT_ANSWER_TIMEOUT_SECONDS) * 1000,
    }),
  }
}

/**
 * What is wrong with a base URL, as the end of a sentence that names the fix, or null when it can be used:
 * it must be an http(s) URL, and carry no credentials (fetch refuses a user or password in a URL, and the
 * SDKs append the API path after any query string). `keyVariable` is where the key belongs instead.
 */
export function baseUrlProblem(baseUrl: string, keyVariable: string): string | null {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return 'is not a URL: set it to an http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http(s) URL: set it to one'
  if (url.username || url.password) {
    return `has credentials in it: credentials in the base URL are not supported; put the key in ${keyVariable} and remove the user and password from the URL`
  }
  if (url.search || url.hash) {
    return `has a query string or fragment: the SDK appends the API path after it, so it cannot work; put a key in ${keyVariable} and remove the query from the URL`
  }
  return null
}

/**
 * The client options both SDKs share: the resolved key and base URL (never their own environment
 * lookups), the per-attempt timeout, the retries, the proxy-aware fetch, and no SDK logging.
 */
export function sdkClientOptions(endpoint: Endpoint, fetch: FetchFunction) {
  return {
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseUrl,
    timeout: endpoint.timeoutSeconds * 1000,
    maxRetries: endpoint.maxRetries,
    fetch,
    logLevel: 'off' as const,
  }
}
