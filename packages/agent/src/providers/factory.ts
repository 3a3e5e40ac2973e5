import type { ApiConfig, ModelConfig } from '../config/types.ts'
import { createAnthropicProvider } from './anthropic.ts'
import type { ProviderOptions } from './endpoint.ts'
import type { ProxyEnv } from './http.ts'
import { createOfflineModel } from './offline.ts'
import { createOpenAIProvider } from './openai.ts'
import type { ModelProvider } from './types.ts'

/** Per-call settings that differ from the configuration's (a quick check retries nothing). */
type CallSettings = Pick<ProviderOptions, 'timeoutSeconds' | 'maxRetries'>

/**
 * The provider `api.provider` names, for one model (`models.main` or `models.compressor`). Network
 * providers throw `NO_API_KEY` at once when the config holds no key; `offline` needs none. `env` is read
 * for proxy variables only (default `process.env`).
 */
export function createProvider(
  api: ApiConfig,
  model: ModelConfig,
  env?: ProxyEnv,
  settings: CallSettings = {},
): ModelProvider {
  if (api.provider === 'offline') return createOfflineModel()
  const options: ProviderOptions = {
    apiKey: api.apiKey,
    model: model.modelId,
    timeoutSeconds: api.timeoutSeconds,
    ...(api.apiKeySource === undefined ? {} : { apiKeySource: api.apiKeySource }),
    ...(api.baseUrl === undefined ? {} : { baseUrl: api.baseUrl }),
    ...(env === undefined ? {} : { env }),
    ...settings,
  }
  return api.provider === 'anthropic' ? createAnthropicProvider(options) : createOpenAIProvider(options)
}
