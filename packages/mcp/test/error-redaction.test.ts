import { openStore, type Store } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { McpStore } from '../src/deps.ts'
import { createEngramMcp } from '../src/server.ts'
import { call, memoryFiles, textOf, workspace } from './helpers.ts'

// In-process: the SDK's client and server over its in-memory transport, on a real store file.
const ws = workspace()
let store: Store
let client: Client
let close: () => Promise<unknown>

beforeAll(async () => {
  store = await openStore({ url: ws.db })
  const mcp = createEngramMcp({ store, memory: memoryFiles(ws), scope: { user: 'alice' }, sessionLog: true })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await mcp.server.connect(serverSide)
  client = new Client({ name: 'test', version: '1' })
  await client.connect(clientSide)
  close = () => Promise.all([client.close(), mcp.close()])
})

afterAll(async () => {
  await close()
  await store.close()
})

const KEY = 'sk-proj-Zq8vN3xR5tW2yU7iO1pA4sD6'

it('a secret in an error never reaches the client: the refusal is sent with the key redacted', async () => {
  const cases = [
    ['session_read', { session_id: KEY }],
    ['session_read', { session_id: `notes ${KEY}` }],
    ['memory', { target: 'memory', operations: [{ action: 'remove', old_text: `the key ${KEY}` }] }],
  ] as const
  for (const [name, args] of cases) {
    const result = await call(client, name, args)
    expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
    const text = textOf(result)
    // The refusal still says what was wrong, with the key replaced.
    expect(text.length).toBeGreaterThan(20)
    expect(text).not.toContain(KEY)
    expect(text).not.toContain(KEY.slice(8))
  }
})

/** What a driver's error can carry: the connection string with its password, a key in a header it quotes. */
const PASSWORD = 'pg-Secr3t-hunter2'
const DRIVER_ERROR = `connect to postgres://engram:${PASSWORD}@db.internal:5432/engram failed (Authorization: Bearer ${KEY})`

it('a secret in an unexpected error (not a refusal) never reaches the client either', async () => {
  // The real store, with the reads each tool makes failing as a driver would: not an EngramError, so
  // every tool reports it as "failed unexpectedly" with the error's message.
  const failing = (): Promise<never> => Promise.reject(new Error(DRIVER_ERROR))
  const broken: McpStore = Object.assign(Object.create(store) as McpStore, {
    search: failing,
    listSessions: failing,
    resolveSession: failing,
  })
  const mcp = createEngramMcp({ store: broken, memory: memoryFiles(ws), scope: { user: 'alice' } })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await mcp.server.connect(serverSide)
  const failingClient = new Client({ name: 'test', version: '1' })
  await failingClient.connect(clientSide)
  try {
    for (const [name, args] of [
      ['sessions_list', {}],
      ['session_read', { session_id: 'abcd1234' }],
      ['session_search', { query: 'deploy' }],
    ] as const) {
      const result = await call(failingClient, name, args)
      expect(result.isError, name).toBe(true)
      const text = textOf(result)
      expect(text, name).toContain('failed unexpectedly')
      // What failed is still said, with the host; the password and the key are not.
      expect(text, name).toContain('db.internal')
      expect(text, name).not.toContain(PASSWORD)
      expect(text, name).not.toContain(KEY)
      expect(text, name).not.toContain(KEY.slice(8))
      expect(JSON.stringify(result), name).not.toContain(PASSWORD)
    }
  } finally {
    await Promise.all([failingClient.close(), mcp.close()])
  }
})
