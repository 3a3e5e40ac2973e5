import { openStore, type Store } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
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
