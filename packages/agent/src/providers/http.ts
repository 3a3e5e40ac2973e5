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

/** An answer that stopped arriving (`idle`) or took longer than allowed in all (`total`). */
export class StalledAnswerError extends Error {
  override readonly name = 'StalledAnswerError'
  /** Read by the SDKs' and the compressor's network checks: a stall is a timeout. */
  readonly code = 'ETIMEDOUT'

  constructor(
    readonly kind: 'idle' | 'total',
    readonly seconds: number,
  ) {
    super(
      kind === 'idle'
        ? `the answer stopped arriving: nothing for ${seconds} s`
        : `the answer was not complete after ${seconds} s`,
    )
  }
}

/** The two limits on one attempt's answer body, in milliseconds. */
export interface AnswerLimits {
  /** The longest silence between two pieces of the body. */
  idleMs: number
  /** The longest the whole exchange may take, from the request to the body's end. */
  totalMs: number
}

/**
 * The body of `response`, read under `limits`: when a read waits past the idle limit or the deadline, the
 * body fails with a {@link StalledAnswerError} and `cut` aborts the request (freeing the connection).
 */
function guardedBody(
  body: ReadableStream<Uint8Array>,
  limits: AnswerLimits,
  deadline: number,
  cut: AbortController,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const left = deadline - Date.now()
      const stall =
        left < limits.idleMs
          ? new StalledAnswerError('total', limits.totalMs / 1000)
          : new StalledAnswerError('idle', limits.idleMs / 1000)
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(stall), Math.max(0, Math.min(left, limits.idleMs)))
      })
      try {
        const chunk = await Promise.race([reader.read(), timeout])
        if (chunk.done) controller.close()
        else controller.enqueue(chunk.value)
      } catch (error) {
        if (error === stall) {
          cut.abort(stall)
          reader.cancel(stall).catch(() => {})
        }
        controller.error(error)
      } finally {
        clearTimeout(timer)
      }
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}

/** Statuses a Response may not be built with a body for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

/**
 * A fetch whose answers cannot stall: the body of every response is read under `limits` (the SDKs' own
 * timeout stops at the response headers, so a server that sends headers, or one chunk, and then nothing
 * would otherwise hold the call for good). The caller's abort signal still cancels the request.
 */
export function answerDeadlines(fetch: FetchFunction, limits: AnswerLimits): FetchFunction {
  return async (input, init) => {
    const deadline = Date.now() + limits.totalMs
    const cut = new AbortController()
    const signal = init?.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal
    const response = await fetch(input, { ...init, signal })
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response
    return new Response(guardedBody(response.body, limits, deadline, cut), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
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
