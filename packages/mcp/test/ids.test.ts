import { openStore, type Store } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createEngramMcp } from '../src/server.ts'
import { loggedSessionId } from '../src/tools/session-log.ts'
import { call, memoryFiles, textOf, workspace } from './helpers.ts'

// In-process: the SDK's client and server over its in-memory transport, on a real store file.
const ws = workspace()
const scope = { user: 'alice' }
let store: Store
let client: Client
let close: () => Promise<unknown>

beforeAll(async () => {
  store = await openStore({ url: ws.db })
  const mcp = createEngramMcp({ store, memory: memoryFiles(ws), scope, sessionLog: true })
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

const wellFormed = (value: string) => (value as unknown as { isWellFormed(): boolean }).isWellFormed()
/** Ids of any UTF-16 code units: lone high and low surrogates, pairs they may form by chance, CJK, ASCII. */
const id = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  minLength: 1,
  maxLength: 6,
})

async function log(conversation: string, message: string, tool = 'call-1') {
  return call(client, 'session_log', {
    conversation_id: conversation,
    messages: [
      {
        id: message,
        role: 'assistant',
        content: 'ok',
        tool_calls: [{ id: tool, name: 'f', arguments: '{}' }],
      },
      { id: `${message}-result`, role: 'tool', tool_call_id: tool, content: 'done' },
    ],
  })
}

it('"\\ud800" and "\\udfff" are refused as conversation and message ids, naming the fix; nothing is stored', async () => {
  for (const [conversation, message, tool] of [
    ['\ud800', 'm', 'c'],
    ['\udfff', 'm', 'c'],
    ['ok', '\ud800', 'c'],
    ['ok', 'm', '\udfff'],
  ] as const) {
    const result = await log(conversation, message, tool)
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/well-formed UTF-16: it holds a lone surrogate.*toWellFormed\(\)/)
  }
  expect(await store.getSession(loggedSessionId(scope, '\ud800'))).toBeNull()
  expect(await store.getSession(loggedSessionId(scope, 'ok'))).toBeNull()
})

it('any id: a well-formed one is stored exactly (its own session, its ref round-trips through export and import), an ill-formed one is refused', async () => {
  const seen = new Map<string, string>()
  await fc.assert(
    fc.asyncProperty(id, id, async (conversation, message) => {
      const result = await log(conversation, message)
      const sessionId = loggedSessionId(scope, conversation)
      if (!wellFormed(conversation) || !wellFormed(message)) {
        expect(result.isError).toBe(true)
        expect(textOf(result)).toContain('lone surrogate')
        if (!wellFormed(conversation)) expect(await store.getSession(sessionId)).toBeNull()
        return
      }
      expect(result.isError, textOf(result)).toBeFalsy()
      expect((result.structuredContent as { sessionId: string }).sessionId).toBe(sessionId)
      // Distinct conversations never share a session.
      expect(seen.get(sessionId) ?? conversation).toBe(conversation)
      seen.set(sessionId, conversation)
      const exported = await store.exportSession(sessionId)
      const refs = exported?.messages.map((m) => m.ref) ?? []
      expect(refs).toContain(message)
      expect(refs).toContain(`${message}-result`)
      // The export goes into another store as it is.
      const copy = await openStore({ url: ':memory:' })
      try {
        await copy.importSession(exported as never)
        const again = await copy.exportSession(sessionId)
        expect(again?.messages.map((m) => m.ref)).toEqual(refs)
      } finally {
        await copy.close()
      }
    }),
    { numRuns: 60 },
  )
})
