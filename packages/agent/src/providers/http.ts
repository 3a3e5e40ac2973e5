import type { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici'

/** The environment variables the transport reads (proxy settings only); defaults to `process.env`. */
export type ProxyEnv = Readonly<Record<string, string | undefined>>

/** A proxy in use for an endpoint, and the variable that set it (for error messages). */
export interface ProxySetting {
  url: string
  source: string
}

function firstSet(env: ProxyEnv, names: readonly string[]): ProxySetting | null {
  for (const name of names) {
    const url = env[name]?.trim()
    if (url) return { url, source: name }
  }
  return null
}

function bypassed(hostname: string, noProxy: string): boolean {
  return noProxy
    .split(/[,\s]+/)
    .map((entry) =>
      entry
        .trim()
        .toLowerCase()
        .replace(/:\d+$/, '')
        .replace(/^\*?\./, ''),
    )
    .some(
      (entry) => entry === '*' || (entry !== '' && (hostname === entry || hostname.endsWith(`.${entry}`))),
    )
}

/** The proxy requests to `baseUrl` go through under `env` (HTTP(S)_PROXY minus NO_PROXY), or null. */
export function proxyFor(baseUrl: string, env: ProxyEnv): ProxySetting | null {
  const url = new URL(baseUrl)
  const noProxy = env.no_proxy ?? env.NO_PROXY ?? ''
  if (bypassed(url.hostname.toLowerCase(), noProxy)) return null
  const http = ['http_proxy', 'HTTP_PROXY']
  return firstSet(env, url.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', ...http] : http)
}

export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/**
 * A fetch for the SDKs that honours HTTP(S)_PROXY and NO_PROXY from `env` (Node's global fetch ignores
 * them), through undici's `EnvHttpProxyAgent`. Only `env` is read, never `process.env` behind its back.
 */
export function proxyAwareFetch(env: ProxyEnv): FetchFunction {
  // undici loads on the first request, so building a provider costs no start-up time.
  const transport = once(async () => {
    const undici = await import('undici')
    const dispatcher: EnvHttpProxyAgent = new undici.EnvHttpProxyAgent({
      httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
      httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? env.http_proxy ?? env.HTTP_PROXY ?? '',
      noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
    })
    return { fetch: undici.fetch, dispatcher }
  })
  return async (input, init) => {
    const { fetch, dispatcher } = await transport()
    return fetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    }) as unknown as Promise<Response>
  }
}

/**
 * `load` run at most once: the first call starts it, every call shares its promise. A failed load is
 * forgotten, so the next call tries again (a module that failed to load once may load later).
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined
      throw error
    })
    return pending
  }
}
