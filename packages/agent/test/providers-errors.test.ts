import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { isAuthOrNetworkError } from '@engram/compressor'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAnthropicProvider } from '../src/providers/anthropic.ts'
import { maskKey } from '../src/providers/errors.ts'
import { createOpenAIProvider } from '../src/providers/openai.ts'
import {
  ANTHROPIC_KEY,
  localOptions,
  localProvider,
  OPENAI_KEY,
  rejectionOf,
  type Vendor,
} from './providers-helpers.ts'
import { anthropicAnswer, anthropicError, messageJson } from './servers/anthropic.ts'
import {
  closedPort,
  hang,
  type LocalServer,
  type Reply,
  sendEvents,
  sendJson,
  sendText,
  startServer,
} from './servers/http.ts'
import { openaiAnswer, openaiError } from './servers/openai.ts'
import { startConnectProxy } from './servers/proxy.ts'

const ask = { system: 's', messages: [{ role: 'user' as const, content: 'hello' }] }
const KEYS = [OPENAI_KEY, ANTHROPIC_KEY, 'sk-ant-oat01-OAUTHTOKEN0123456789abcdefghij']

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const answer = (vendor: Vendor): Reply =>
  vendor === 'openai'
    ? openaiAnswer({ text: 'ok', usage: { prompt: 3, completion: 1 } })
    : anthropicAnswer({ text: 'ok', usage: { input: 3, output: 1 } })

const unauthorized = (vendor: Vendor): Reply =>
  vendor === 'openai'
    ? openaiError(401, 'Incorrect API key provided.', 'invalid_api_key')
    : anthropicError(401, 'authentication_error', 'invalid x-api-key')

function expectNoSecret(error: Error) {
  for (const key of KEYS) expect(error.message).not.toContain(key)
}

describe.each(['openai', 'anthropic'] as const)('%s provider errors', (vendor) => {
  const key = vendor === 'openai' ? OPENAI_KEY : ANTHROPIC_KEY
  const variable = vendor === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'
  const baseVariable = vendor === 'openai' ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL'

  it('401: names the variable the key came from and shows it masked', async () => {
    server = await startServer([unauthorized(vendor)])
    const error = await rejectionOf(localProvider(vendor, server.origin).chat(ask))
    expect(error.code).toBe('AUTH')
    expect(error.status).toBe(401)
    expect(error.message).toContain(variable)
    expect(error.message).toContain(maskKey(key))
    expect(error.message).toContain(key.slice(-4))
    expectNoSecret(error)
    expect(server.requests).toHaveLength(1) // not retried
    expect(isAuthOrNetworkError(error)).toBe(true)
  })

  it('401 with an explicit key source names that source', async () => {
    server = await startServer([unauthorized(vendor)])
    const error = await rejectionOf(
      localProvider(vendor, server.origin, { apiKeySource: 'api.api_key in engram.toml' }).chat(ask),
    )
    expect(error.message).toContain('api.api_key in engram.toml')
  })

  it('no key: fails before any request, naming the variable', async () => {
    const error = await rejectionOf(
      Promise.resolve().then(() => localProvider(vendor, 'http://127.0.0.1:9', { apiKey: '  ' })),
    )
    expect(error.code).toBe('NO_API_KEY')
    expect(error.message).toContain(variable)
    // A library user is told what to pass, not how to run the CLI.
    expect(error.message).toContain('`apiKey`')
    expect(error.message).not.toContain('offline')
  })

  it('no baseUrl given: the base URL variable of the env is used, as the vendor SDK would', async () => {
    server = await startServer([answer(vendor)])
    const baseUrl = vendor === 'openai' ? `${server.origin}/v1` : server.origin
    const { baseUrl: _given, ...options } = { ...localOptions(vendor), env: { [baseVariable]: baseUrl } }
    const result = await (vendor === 'openai' ? createOpenAIProvider : createAnthropicProvider)(options).chat(
      ask,
    )
    expect(result.message.content).toBe('ok')
    expect(server.requests).toHaveLength(1)
  })

  it('a base URL variable that is no URL: INVALID_CONFIG naming the variable', async () => {
    const { baseUrl: _given, ...options } = {
      ...localOptions(vendor),
      env: { [baseVariable]: 'ftp://host/v1' },
    }
    const error = await rejectionOf(
      Promise.resolve().then(() =>
        (vendor === 'openai' ? createOpenAIProvider : createAnthropicProvider)(options),
      ),
    )
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toContain(baseVariable)
  })

  it('404 page not found: shows the base URL and what to change in its /v1', async () => {
    server = await startServer([(_r, res) => sendText(res, 404, '404 page not found')])
    const baseUrl = vendor === 'openai' ? `${server.origin}/v1/v1` : `${server.origin}/v1`
    const error = await rejectionOf(localProvider(vendor, server.origin, { baseUrl }).chat(ask))
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain(baseUrl)
    expect(error.message).toContain('page not found')
    if (vendor === 'openai') expect(error.message).toContain(`doubled /v1: try ${server.origin}/v1`)
    else expect(error.message).toContain(`must not end in /v1: try ${server.origin}.`)
  })

  it('404 with no /v1 at all: suggests adding it (OpenAI) / checking the gateway (Anthropic)', async () => {
    server = await startServer([(_r, res) => sendText(res, 404, '404 page not found')])
    const error = await rejectionOf(
      localProvider(vendor, server.origin, { baseUrl: `${server.origin}/api` }).chat(ask),
    )
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain(vendor === 'openai' ? `try ${server.origin}/api/v1` : 'adds /v1/messages')
  })

  it.each([404, 400])('an unknown model id (%i) names the model and where to set it', async (status) => {
    server = await startServer([
      vendor === 'openai'
        ? openaiError(
            status,
            status === 404
              ? 'The model `gpt-nope` does not exist or you do not have access to it.'
              : 'gpt-nope is not a valid model ID',
            status === 404 ? 'model_not_found' : null,
          )
        : anthropicError(
            status,
            status === 404 ? 'not_found_error' : 'invalid_request_error',
            'model: claude-nope',
          ),
    ])
    const model = vendor === 'openai' ? 'gpt-nope' : 'claude-nope'
    const error = await rejectionOf(localProvider(vendor, server.origin, { model }).chat(ask))
    expect(error.code).toBe('MODEL_NOT_FOUND')
    expect(error.message).toContain(`"${model}"`)
    expect(error.message).toContain('HERMES_MODEL')
  })

  it('429 with retry-after: waits as told, then succeeds', async () => {
    const limited: Reply = (_r, res) =>
      sendJson(
        res,
        429,
        { error: { message: 'Rate limit reached', type: 'rate_limit_error' } },
        { 'retry-after': '1' },
      )
    server = await startServer([limited, answer(vendor)])
    // A fake clock: the SDK's wait is observed and skipped, not slept through.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const waits = vi.spyOn(globalThis, 'setTimeout')
    try {
      const pending = localProvider(vendor, server.origin).chat(ask)
      const retryWait = () => waits.mock.calls.find(([, ms]) => ms === 1_000)
      await vi.waitFor(() => expect(retryWait()).toBeDefined())
      await vi.advanceTimersByTimeAsync(999)
      expect(server.requests).toHaveLength(1)
      await vi.advanceTimersByTimeAsync(1)
      const result = await pending
      expect(result.message.content).toBe('ok')
      expect(server.requests).toHaveLength(2)
    } finally {
      // The spy wraps the fake setTimeout: restored first, or the fake would stay in place.
      waits.mockRestore()
      vi.useRealTimers()
    }
  })

  it('429 that never ends: one message after the retries', async () => {
    const limited: Reply = (_r, res) =>
      sendJson(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after-ms': '5' })
    server = await startServer([], limited)
    const error = await rejectionOf(localProvider(vendor, server.origin, { maxRetries: 2 }).chat(ask))
    expect(error.code).toBe('RATE_LIMITED')
    expect(error.message).toContain('3 attempt(s)')
    expect(server.requests).toHaveLength(3)
  })

  it('5xx: retried, then succeeds', async () => {
    const failing =
      (status: number): Reply =>
      (_r, res) =>
        sendJson(res, status, { error: { message: 'upstream overloaded' } }, { 'retry-after-ms': '5' })
    server = await startServer([failing(500), failing(503), answer(vendor)])
    const result = await localProvider(vendor, server.origin).chat(ask)
    expect(result.message.content).toBe('ok')
    expect(server.requests).toHaveLength(3)
  })

  it('timeout: retried, then one message naming the timeout', async () => {
    server = await startServer([], hang)
    const origin = server.origin
    // the attempts are counted as the client sends them (undici's request channel): on a loaded machine the
    // retry's 0.2 s can run out before its request reaches the server's handler, so `requests` may miss it
    const sent: string[] = []
    const onRequest = (message: unknown) => {
      const { request } = message as { request: { origin: string; path: string } }
      if (request.origin === origin) sent.push(request.path)
    }
    subscribe('undici:request:create', onRequest)
    const error = await rejectionOf(
      localProvider(vendor, origin, { timeoutSeconds: 0.2, maxRetries: 1 }).chat(ask),
    ).finally(() => unsubscribe('undici:request:create', onRequest))
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain('0.2 s')
    expect(error.message).toContain('timeout_seconds')
    expect(sent).toHaveLength(2)
    expect(new Set(sent).size).toBe(1)
    expect(server.requests.length).toBeLessThanOrEqual(2)
  })

  it('HTTPS_PROXY set to a proxy that is not running: "local proxy failed" naming the variable, password hidden', async () => {
    const port = await closedPort()
    const env = { HTTPS_PROXY: `http://me:hunter2secret@127.0.0.1:${port}` }
    const provider = localProvider(vendor, '', {
      baseUrl: 'https://api.example.invalid/v1',
      env,
      maxRetries: 0,
    })
    const error = await rejectionOf(provider.chat(ask))
    expect(error.code).toBe('PROXY')
    expect(error.message).toContain('local proxy failed')
    expect(error.message).toContain('HTTPS_PROXY')
    expect(error.message).toContain(`127.0.0.1:${port}`)
    expect(error.message).not.toContain('hunter2secret')
    expect(isAuthOrNetworkError(error)).toBe(true)
  })

  it('HTTP_PROXY that works: the call goes through the proxy; NO_PROXY bypasses it', async () => {
    server = await startServer([answer(vendor), answer(vendor)])
    const proxy = await startConnectProxy()
    try {
      const through = await localProvider(vendor, server.origin, { env: { HTTP_PROXY: proxy.url } }).chat(ask)
      expect(through.message.content).toBe('ok')
      expect(proxy.tunnels).toEqual([server.origin.slice('http://'.length)])
      await localProvider(vendor, server.origin, {
        env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      }).chat(ask)
      expect(proxy.tunnels).toHaveLength(1)
      expect(server.requests).toHaveLength(2)
    } finally {
      await proxy.close()
    }
  })

  it('nothing listening: a network error naming the URL', async () => {
    const port = await closedPort()
    const error = await rejectionOf(
      localProvider(vendor, `http://127.0.0.1:${port}`, { maxRetries: 0 }).chat(ask),
    )
    expect(error.code).toBe('NETWORK')
    expect(error.message).toContain(`127.0.0.1:${port}`)
    expect(error.message).toContain('ECONNREFUSED')
  })

  it.each([false, true])(
    'a 200 JSON body of the wrong shape: shows the start of the raw body (stream=%s)',
    async (stream) => {
      server = await startServer([
        (_r, res) => sendJson(res, 200, { object: 'list', data: [{ id: 'gpt-local' }] }),
      ])
      const error = await rejectionOf(
        localProvider(vendor, server.origin).chat({ ...ask, ...(stream ? { onText: () => {} } : {}) }),
      )
      expect(error.code).toBe('BAD_RESPONSE')
      expect(error.message).toContain('"object":"list"')
      if (vendor === 'openai' && !stream) expect(error.message).toContain('without `choices`')
    },
  )

  it.each([false, true])('an HTML page with status 200: shows its start (stream=%s)', async (stream) => {
    const page = '<!DOCTYPE html><html><head><title>Gateway console</title></head><body>Sign in</body></html>'
    server = await startServer([(_r, res) => sendText(res, 200, page, 'text/html')])
    const error = await rejectionOf(
      localProvider(vendor, server.origin).chat({ ...ask, ...(stream ? { onText: () => {} } : {}) }),
    )
    expect(error.code).toBe('BAD_RESPONSE')
    expect(error.message).toContain('<!DOCTYPE html><html><head><title>Gateway console')
  })

  it('cancelling the call through the signal', async () => {
    server = await startServer([], hang)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const error = await rejectionOf(
      localProvider(vendor, server.origin).chat({ ...ask, signal: controller.signal }),
    )
    expect(error.code).toBe('ABORTED')
  })
})

describe('credential confusion hints', () => {
  it('an Anthropic OAuth token given as the API key', async () => {
    server = await startServer([
      anthropicError(401, 'authentication_error', 'OAuth authentication is currently not supported.'),
    ])
    const error = await rejectionOf(localProvider('anthropic', server.origin, { apiKey: KEYS[2] }).chat(ask))
    expect(error.message).toContain('Claude OAuth token')
    expect(error.message).toContain('sk-ant-api')
    expectNoSecret(error)
  })

  it('an OpenAI key sent to Anthropic', async () => {
    server = await startServer([anthropicError(401, 'authentication_error', 'invalid x-api-key')])
    const error = await rejectionOf(
      localProvider('anthropic', server.origin, { apiKey: OPENAI_KEY }).chat(ask),
    )
    expect(error.message).toContain('OpenAI-style key sent to the Anthropic API')
  })

  it('an Anthropic key sent to an OpenAI-compatible endpoint, echoed back by the server, stays masked', async () => {
    server = await startServer([
      openaiError(401, `Incorrect API key provided: ${ANTHROPIC_KEY}.`, 'invalid_api_key'),
    ])
    const error = await rejectionOf(
      localProvider('openai', server.origin, { apiKey: ANTHROPIC_KEY }).chat(ask),
    )
    expect(error.message).toContain('Anthropic key sent to an OpenAI-compatible endpoint')
    expectNoSecret(error)
  })
})

describe('maskKey', () => {
  it('keeps a short prefix and the last four characters, hides short keys entirely', () => {
    expect(maskKey(OPENAI_KEY)).toBe(`sk-pro…mnop (${OPENAI_KEY.length} chars)`)
    expect(maskKey('abc123')).toBe('(6 chars, hidden)')
  })
})

describe('errors inside a stream', () => {
  it('Anthropic: an error event after message_start is a server error naming its message', async () => {
    server = await startServer([
      (_r, res) =>
        sendEvents(res, [
          {
            event: 'message_start',
            data: JSON.stringify({
              type: 'message_start',
              message: messageJson({ usage: { input: 1, output: 0 } }),
            }),
          },
          {
            event: 'error',
            data: JSON.stringify({
              type: 'error',
              error: { type: 'overloaded_error', message: 'Overloaded' },
            }),
          },
        ]),
    ])
    const error = await rejectionOf(
      localProvider('anthropic', server.origin).chat({ ...ask, onText: () => {} }),
    )
    expect(error.code).toBe('SERVER_ERROR')
    expect(error.message).toContain('in the middle of its answer (Overloaded)')
  })

  it('OpenAI: an error object in the stream is a server error naming its message', async () => {
    server = await startServer([
      (_r, res) =>
        sendEvents(res, [
          {
            data: JSON.stringify({
              error: { message: 'The server had an error while processing your request.' },
            }),
          },
        ]),
    ])
    const error = await rejectionOf(localProvider('openai', server.origin).chat({ ...ask, onText: () => {} }))
    expect(error.code).toBe('SERVER_ERROR')
    expect(error.message).toContain('The server had an error while processing your request.')
  })
})
