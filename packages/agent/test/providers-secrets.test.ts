import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { maskedConfig, maskUrl } from '../src/config/mask.ts'
import { checkModel, describeConfig, loadConfig } from '../src/index.ts'
import { localProvider, rejectionOf, type Vendor } from './providers-helpers.ts'
import { closedPort, type LocalServer, type Reply, sendText, startServer } from './servers/http.ts'

const ask = { system: 's', messages: [{ role: 'user' as const, content: 'hello' }] }

/** A key as gateways issue them: a prefix, then letters and digits (at least one of each), 16+ characters. */
const keys = fc
  .tuple(
    fc.constantFrom('sk-', 'sk-proj-', 'key_', ''),
    fc.stringMatching(/^[A-Za-z0-9]{15,40}$/),
    fc.integer({ min: 0, max: 9 }),
  )
  .filter(([, body]) => /[A-Za-z]/.test(body))
  .map(([prefix, body, digit]) => `${prefix}${body}${digit}`)

type Placement = 'userinfo' | 'query' | 'path'
const placements = fc.constantFrom<Placement>('userinfo', 'query', 'path')

function baseUrlWith(origin: string, key: string, where: Placement): string {
  const host = origin.slice('http://'.length)
  if (where === 'userinfo') return `http://user:${key}@${host}/v1`
  if (where === 'query') return `${origin}/v1?api-key=${key}`
  return `${origin}/${key}/v1`
}

/** Servers that echo the request path back, as many 404 pages and portals do. */
const echo404: Reply = (request, res) => sendText(res, 404, `Cannot POST ${request.path}`)
const echoPage: Reply = (request, res) =>
  sendText(res, 200, `<html><body>Sign in to continue to ${request.path}</body></html>`, 'text/html')

let servers: LocalServer[] = []
let deadOrigin = ''
beforeAll(async () => {
  servers = [await startServer([], echo404), await startServer([], echoPage)]
  deadOrigin = `http://127.0.0.1:${await closedPort()}`
})
afterAll(async () => {
  for (const server of servers) await server.close()
})

/** Every message the provider layer can produce for this base URL. */
async function messagesFor(vendor: Vendor, baseUrl: (origin: string) => string): Promise<string[]> {
  const messages: string[] = []
  for (const origin of [...servers.map((s) => s.origin), deadOrigin]) {
    const url = baseUrl(origin)
    const error = await rejectionOf(
      Promise.resolve().then(() => localProvider(vendor, origin, { baseUrl: url, maxRetries: 0 }).chat(ask)),
    )
    messages.push(error.message)
    const check = await checkModel(
      {
        provider: vendor,
        apiKey: 'sk-test-key-0123456789',
        apiKeySource: 'OPENAI_API_KEY',
        baseUrl: url,
        timeoutSeconds: 5,
      },
      { modelId: 'm', maxTokens: 16, contextWindow: 1000 },
      {},
    )
    expect(check.ok).toBe(false)
    messages.push(check.detail)
  }
  return messages
}

describe('a key in the base URL never reaches a message', () => {
  it.each(['openai', 'anthropic'] as const)('%s: userinfo, query or path (property)', async (vendor) => {
    await fc.assert(
      fc.asyncProperty(keys, placements, async (key, where) => {
        const messages = await messagesFor(vendor, (origin) => baseUrlWith(origin, key, where))
        for (const message of messages) expect(message).not.toContain(key)
        if (where !== 'path') {
          expect(messages[0]).toContain(
            where === 'userinfo' ? 'credentials in the base URL are not supported' : 'query string',
          )
        }
      }),
      { numRuns: 12 },
    )
  })

  it('userinfo: refused before any request as INVALID_CONFIG, naming where the key goes', async () => {
    const error = await rejectionOf(
      Promise.resolve().then(() =>
        localProvider('openai', '', { baseUrl: 'http://user:hunter2secret@127.0.0.1:9/v1' }),
      ),
    )
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toContain(
      'credentials in the base URL are not supported; put the key in OPENAI_API_KEY',
    )
    expect(error.message).toContain('http://***@127.0.0.1:9/v1')
    expect(error.message).not.toContain('hunter2secret')
  })

  it('a malformed base URL is INVALID_CONFIG, not NOT_FOUND', async () => {
    const error = await rejectionOf(
      Promise.resolve().then(() => localProvider('openai', '', { baseUrl: 'not a url' })),
    )
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toContain('is not a URL')
  })

  it('the loader and the printed configuration (property)', () => {
    fc.assert(
      fc.property(keys, placements, (key, where) => {
        const url = baseUrlWith('http://127.0.0.1:9', key, where)
        const env = {
          OPENAI_API_KEY: 'sk-x',
          OPENAI_BASE_URL: url,
          ENGRAM_DB_URL: `libsql://db.example.io/${key}?authToken=${key}`,
        }
        let config: ReturnType<typeof loadConfig> | undefined
        try {
          config = loadConfig({ file: null, env })
        } catch (error) {
          expect((error as { code?: string }).code).toBe('INVALID_CONFIG')
          expect((error as Error).message).not.toContain(key)
        }
        // Only a key in the path can be used (and is masked wherever the url is printed).
        expect(config !== undefined).toBe(where === 'path')
        if (config) {
          expect(JSON.stringify(maskedConfig(config))).not.toContain(key)
          expect(JSON.stringify(describeConfig(config))).not.toContain(key)
        }
      }),
      { numRuns: 60 },
    )
  })
})

describe('maskUrl', () => {
  it.each([
    ['http://user:pw1234@host:8080/v1', 'http://***@host:8080/v1'],
    ['https://gw.example.com/v1?api-key=abcd1234&x', 'https://gw.example.com/v1?api-key=***&x'],
    ['https://gw.example.com/sk-abcdefghij0123456789/v1', 'https://gw.example.com/***/v1'],
    ['https://api.openai.com/v1', 'https://api.openai.com/v1'],
    ['/home/me/data/engram-2026-backup-copy.db', '/home/me/data/engram-2026-backup-copy.db'],
    ['file:ok.db', 'file:ok.db'],
    ['libsql://db.turso.io#token1234', 'libsql://db.turso.io#***'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked)
  })
})
