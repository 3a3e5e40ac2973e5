import type { Endpoint } from './errors.ts'
import { ProviderError } from './errors.ts'
import { type FetchFunction, type ProxyEnv, proxyAwareFetch, proxyFor } from './http.ts'

/** What a network provider needs; the config module fills it from `EngramConfig.api` and a `ModelConfig`. */
export interface ProviderOptions {
  apiKey: string | undefined
  /** Where the key came from (`OPENAI_API_KEY`, `api.api_key`, …), named in authentication errors. */
  apiKeySource?: string
  /** Defaults to the vendor's public API. */
  baseUrl?: string
  model: string
  /** Per attempt; default 60. */
  timeoutSeconds?: number
  /** Retries after the first attempt on 429, 5xx, timeouts and connection errors; default 3. */
  maxRetries?: number
  /** Proxy variables (HTTP(S)_PROXY, NO_PROXY); defaults to `process.env`. Nothing else is read from it. */
  env?: ProxyEnv
}

/** The resolved endpoint plus the fetch the SDK client uses. */
export function resolveEndpoint(
  options: ProviderOptions,
  vendor: { provider: Endpoint['provider']; defaultBaseUrl: string; keyVariable: string; chatPath: string },
): { endpoint: Endpoint; fetch: FetchFunction } {
  const apiKeySource = options.apiKeySource ?? vendor.keyVariable
  const apiKey = options.apiKey?.trim() ?? ''
  if (!apiKey) {
    throw new ProviderError(
      'NO_API_KEY',
      `${vendor.provider}: no API key (${apiKeySource} is not set). Set ${apiKeySource}, or run without a key to use the offline model.`,
    )
  }
  if (!options.model?.trim()) {
    throw new ProviderError(
      'MODEL_NOT_FOUND',
      `${vendor.provider}: no model id. Set HERMES_MODEL or models.main.model_id to a model the endpoint offers.`,
    )
  }
  const baseUrl = (options.baseUrl?.trim() || vendor.defaultBaseUrl).replace(/\/+$/, '')
  try {
    new URL(baseUrl)
  } catch {
    throw new ProviderError(
      'NOT_FOUND',
      `${vendor.provider}: the base URL ${JSON.stringify(baseUrl)} is not a URL. Set it to something like ${vendor.defaultBaseUrl}.`,
    )
  }
  const env = options.env ?? process.env
  return {
    endpoint: {
      provider: vendor.provider,
      baseUrl,
      chatPath: vendor.chatPath,
      model: options.model,
      apiKey,
      apiKeySource,
      proxy: proxyFor(baseUrl, env),
      timeoutSeconds: options.timeoutSeconds ?? 60,
      maxRetries: options.maxRetries ?? 3,
    },
    fetch: proxyAwareFetch(env),
  }
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
