import type { ApiConfig } from '@engram/agent'

export interface ProbeResult {
  ok: boolean
  detail: string
  fix?: string
}

const DEFAULT_BASE = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' }

/**
 * Asks the configured provider for its model list (one small GET, 5 s timeout) and turns the answer into
 * a verdict with the fix the articles list: a rejected key names the variable it came from, a 404 points
 * at the base url's path, an unreachable host mentions a proxy when one is set. The key is never printed.
 */
export async function probeProvider(
  api: ApiConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProbeResult> {
  if (api.provider === 'offline') {
    return {
      ok: true,
      detail:
        'offline deterministic model (no API key set; export OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)',
    }
  }
  const base = (api.baseUrl ?? DEFAULT_BASE[api.provider]).replace(/\/+$/, '')
  const url = api.provider === 'openai' ? `${base}/models` : `${base}/v1/models`
  const headers: Record<string, string> =
    api.provider === 'openai'
      ? { authorization: `Bearer ${api.apiKey}` }
      : { 'x-api-key': api.apiKey ?? '', 'anthropic-version': '2023-06-01' }
  let status: number
  try {
    status = (await fetch(url, { headers, signal: AbortSignal.timeout(5_000) })).status
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    const reason = cause?.code ?? cause?.message ?? (error as Error).message
    const proxy = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy
    return {
      ok: false,
      detail: `cannot reach ${new URL(url).host} (${reason})`,
      fix: proxy
        ? 'a proxy is set (HTTP(S)_PROXY): check that it is running, or unset it'
        : `check the network and the base url (${api.provider === 'openai' ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL'} or api.base_url)`,
    }
  }
  if (status >= 200 && status < 300)
    return {
      ok: true,
      detail: `${api.provider} at ${new URL(url).host} answered (key from ${api.apiKeySource})`,
    }
  if (status === 401 || status === 403) {
    return {
      ok: false,
      detail: `${api.provider} rejected the key from ${api.apiKeySource} (HTTP ${status})`,
      fix: `check ${api.apiKeySource}: it must be an API key for this endpoint (an OAuth/console token is not an API key)`,
    }
  }
  if (status === 404) {
    return {
      ok: false,
      detail: `${url} does not exist (HTTP 404, page not found)`,
      fix: 'check the path of the base url: some gateways want it without /v1, OpenAI itself with it',
    }
  }
  return {
    ok: false,
    detail: `${url} answered HTTP ${status}`,
    fix: 'check the provider status and the base url',
  }
}
