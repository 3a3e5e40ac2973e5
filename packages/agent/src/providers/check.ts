import type { ApiConfig, ModelConfig } from '../config/types.ts'
import { ProviderError, type ProviderErrorCode } from './errors.ts'
import { createProvider } from './factory.ts'
import type { ProxyEnv } from './http.ts'

/** The verdict of {@link checkModel}: one line, secrets masked; on failure `detail` names the cause and fix. */
export interface ModelCheck {
  ok: boolean
  detail: string
  /** The {@link ProviderError} code when the check failed. */
  code?: ProviderErrorCode
}

/** A check waits this long at most (or `api.timeout_seconds` when shorter), with no retries. */
const CHECK_TIMEOUT_SECONDS = 15

/**
 * Whether the configured model answers, through the same provider code as a chat: the same key and base
 * URL handling, the same proxy (HTTP(S)_PROXY / NO_PROXY from `env`), the same response-shape checks (an
 * HTML page or a body without `choices` is a failure, not an answer) and the same error messages. Costs
 * one tiny model call (a few tokens), no retries; the offline model needs none. Never throws a
 * {@link ProviderError}: it becomes the verdict.
 */
export async function checkModel(api: ApiConfig, model: ModelConfig, env?: ProxyEnv): Promise<ModelCheck> {
  if (api.provider === 'offline') {
    return {
      ok: true,
      detail:
        'offline deterministic model (no API key set; export OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)',
    }
  }
  try {
    const provider = createProvider(api, model, env, {
      timeoutSeconds: Math.min(api.timeoutSeconds, CHECK_TIMEOUT_SECONDS),
      maxRetries: 0,
    })
    await provider.chat({
      system: 'This is a connectivity check. Reply with OK.',
      messages: [{ role: 'user', content: 'OK?' }],
      maxTokens: 16,
    })
    return {
      ok: true,
      detail: `${provider.name} model ${provider.model} answered (key from ${api.apiKeySource ?? 'the config'})`,
    }
  } catch (error) {
    if (error instanceof ProviderError) return { ok: false, detail: error.message, code: error.code }
    throw error
  }
}
