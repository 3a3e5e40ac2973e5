import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createAccessToken, openStore } from '@engram/core'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RateLimit } from '../src/http-guard.ts'
import { type Workspace, workspace } from './helpers.ts'
import { callText, connect, type HttpServer, rawRequest, startHttpServer } from './http-helpers.ts'

const ENGRAM_BIN = fileURLToPath(new URL('../../../apps/cli/bin/engram.js', import.meta.url))

/** The SDK client's error for an HTTP 401 answer. */
const unauthorized = (error: unknown) => (error as { code?: unknown }).code === 401

let ws: Workspace
let env: Record<string, string>
let server: HttpServer
const tokens: Record<string, { id: string; secret: string }> = {}
const clients: Client[] = []

/** `engram <args> --db <ws.db>` as a user runs it; its --json stdout. */
async function cli(args: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [ENGRAM_BIN, ...args, '--db', ws.db, '--json'],
    { env: { ...env, PATH: process.env.PATH ?? '' } },
  )
  return JSON.parse(stdout)
}

async function client(token?: string): Promise<Client> {
  const made = await connect(server.url, token)
  clients.push(made)
  return made
}

beforeAll(async () => {
  ws = workspace()
  env = { HOME: ws.dir }
  const store = await openStore({ url: ws.db })
  for (const [user, secret] of [
    ['alice', 'pineapple'],
    ['bob', 'mango'],
  ]) {
    const session = await store.createSession({ source: 'cli', userId: user })
    await store.appendMessage(session.id, { role: 'user', content: `my harbor password is ${secret}` })
  }
  const past = Date.now() - 60_000
  const expired = await createAccessToken(store, { userId: 'alice', expiresAt: past + 1000 }, past)
  tokens.expired = { id: expired.token.id, secret: expired.secret }
  await store.close()
  for (const [name, args] of [
    ['alice', ['--user', 'alice']],
    ['bob', ['--user', 'bob']],
    ['reader', ['--user', 'alice', '--read-only', '--expires', '90d']],
  ] as const) {
    const made = (await cli(['mcp', 'token', 'create', ...args])) as {
      token: { id: string }
      secret: string
    }
    tokens[name] = { id: made.token.id, secret: made.secret }
  }
  server = await startHttpServer(['--db', ws.db], env)
})

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined)
  server?.child.kill('SIGTERM')
  await server?.exited
  rmSync(ws.dir, { recursive: true, force: true })
})

describe('engram mcp --http', () => {
  it('answers a client without a token, or with a wrong one, 401', async () => {
    await expect(client()).rejects.toSatisfy(unauthorized)
    await expect(client(`${tokens.alice?.secret}x`)).rejects.toSatisfy(unauthorized)
    await expect(client(tokens.expired?.secret)).rejects.toSatisfy(unauthorized)
    const raw = await rawRequest(server.url, { headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(raw.status).toBe(401)
    expect(JSON.parse(raw.body).error.message).toContain('engram mcp token create')
  })

  it('serves each token its own user: the same tools as stdio, and never another user’s sessions or memory', async () => {
    const alice = await client(tokens.alice?.secret)
    const bob = await client(tokens.bob?.secret)
    const names = (await alice.listTools()).tools.map((t) => t.name).sort()
    expect(names).toEqual(['memory', 'memory_show', 'session_read', 'session_search', 'sessions_list'])
    expect((await alice.listPrompts()).prompts.map((p) => p.name)).toEqual(['start_session'])
    expect((await alice.listResources()).resources.length).toBeGreaterThan(0)

    const aliceSees = await callText(alice, 'session_search', { query: 'harbor password' })
    expect(aliceSees.text).toContain('pineapple')
    expect(aliceSees.text).not.toContain('mango')
    const bobSees = await callText(bob, 'session_search', { query: 'harbor password' })
    expect(bobSees.text).toContain('mango')
    expect(bobSees.text).not.toContain('pineapple')

    const added = await callText(alice, 'memory', {
      target: 'memory',
      operations: [{ action: 'add', content: 'Alice deploys on Fridays' }],
    })
    expect(added.isError, added.text).toBe(false)
    expect((await callText(alice, 'memory_show', {})).text).toContain('Alice deploys on Fridays')
    expect((await callText(bob, 'memory_show', {})).text).not.toContain('Alice deploys on Fridays')
  })

  it('a session is reachable only with the token that opened it', async () => {
    const alice = await client(tokens.alice?.secret)
    const sessionId = (alice.transport as { sessionId?: string }).sessionId as string
    expect(sessionId).toBeTruthy()
    const stolen = await rawRequest(server.url, {
      headers: {
        authorization: `Bearer ${tokens.bob?.secret}`,
        'mcp-session-id': sessionId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'session_search', arguments: { query: 'harbor' } },
      }),
    })
    expect(stolen.status).toBe(404)
    expect(stolen.body).not.toContain('pineapple')
  })

  it('a read-only token has no write tool and its write is refused', async () => {
    const reader = await client(tokens.reader?.secret)
    const names = (await reader.listTools()).tools.map((t) => t.name)
    expect(names).not.toContain('memory')
    const write = await reader
      .callTool({
        name: 'memory',
        arguments: { target: 'memory', operations: [{ action: 'add', content: 'x' }] },
      })
      .then((r) => ({ refused: Boolean(r.isError), text: JSON.stringify(r.content) }))
      .catch((error: Error) => ({ refused: true, text: error.message }))
    expect(write.refused).toBe(true)
    expect((await callText(reader, 'session_search', { query: 'harbor password' })).text).toContain(
      'pineapple',
    )
  })

  it('an oversized request gets a JSON-RPC error and the server goes on serving', async () => {
    const alice = await client(tokens.alice?.secret)
    const sessionId = (alice.transport as { sessionId?: string }).sessionId as string
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'session_search', arguments: { query: 'x'.repeat(5 * 1024 * 1024) } },
    })
    const answer = await rawRequest(server.url, {
      headers: {
        authorization: `Bearer ${tokens.alice?.secret}`,
        'mcp-session-id': sessionId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: big,
    })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } })
    expect((await callText(alice, 'session_search', { query: 'harbor password' })).text).toContain(
      'pineapple',
    )
    expect(server.child.exitCode).toBeNull()
  })

  it('refuses a Host or Origin it does not serve (DNS rebinding)', async () => {
    const headers = {
      authorization: `Bearer ${tokens.alice?.secret}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    const port = new URL(server.url).port
    const evilHost = await rawRequest(server.url, {
      headers: { ...headers, host: `evil.example:${port}` },
      body,
    })
    expect(evilHost.status).toBe(403)
    const otherPort = await rawRequest(server.url, { headers: { ...headers, host: '127.0.0.1:1' }, body })
    expect(otherPort.status).toBe(403)
    const evilOrigin = await rawRequest(server.url, {
      headers: { ...headers, origin: 'http://evil.example' },
      body,
    })
    expect(evilOrigin.status).toBe(403)
  })

  it('a revoked token stops working at once, on its open sessions too', async () => {
    const bob = await client(tokens.bob?.secret)
    expect((await callText(bob, 'session_search', { query: 'harbor password' })).text).toContain('mango')
    expect(await cli(['mcp', 'token', 'revoke', tokens.bob?.id as string])).toEqual({
      revoked: tokens.bob?.id,
    })
    await expect(bob.callTool({ name: 'session_search', arguments: { query: 'harbor' } })).rejects.toSatisfy(
      unauthorized,
    )
    await expect(client(tokens.bob?.secret)).rejects.toSatisfy(unauthorized)
    const listed = (await cli(['mcp', 'token', 'list'])) as {
      tokens: { id: string; revokedAt: number | null }[]
    }
    expect(listed.tokens.find((t) => t.id === tokens.bob?.id)?.revokedAt).toEqual(expect.any(Number))
    expect(JSON.stringify(listed)).not.toContain(tokens.alice?.secret)
  })
})

describe('the rate limit', () => {
  it('lets a token make its requests per minute, then refuses until the bucket refills', () => {
    let now = 0
    const limit = new RateLimit(3, () => now)
    expect([1, 2, 3, 4].map(() => limit.take('a'))).toEqual([true, true, true, false])
    expect(limit.take('b')).toBe(true)
    now += 20_000
    expect(limit.take('a')).toBe(true)
    expect(limit.take('a')).toBe(false)
  })
})
