import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { STDIO_LINE_LIMIT } from '../src/stdio-lines.ts'
import { MAX_CALL_CHARS } from '../src/tools/session-log.ts'
import { call, type Served, serve, textOf, type Workspace, withStore, workspace } from './helpers.ts'

// The real `engram mcp` process over stdio, with the SDK's own client.
let ws: Workspace
let served: Served

beforeAll(async () => {
  ws = workspace()
  served = await serve(ws, ['--user', 'alice', '--session-log'])
})

afterAll(async () => {
  await served?.client.close()
})

const alive = async () =>
  expect(textOf(await call(served.client, 'sessions_list', {}))).toMatch(/Sessions|No sessions/)

/** Messages whose contents hold `chars` characters together, each written as six bytes of JSON (`\u0001`). */
const heavy = (chars: number, prefix: string) =>
  Array.from({ length: 50 }, (_, i) => ({
    id: `${prefix}-${i}`,
    role: 'user',
    content: '\u0001'.repeat(Math.floor(chars / 50) - `${prefix}-${i}`.length),
  }))

it('a call at the bound, six bytes of JSON a character, fits in one stdio line and is stored', async () => {
  const messages = heavy(MAX_CALL_CHARS - 'at-bound'.length, 'b')
  const line = JSON.stringify({ conversation_id: 'at-bound', messages })
  expect(Buffer.byteLength(line)).toBeGreaterThan(0.85 * STDIO_LINE_LIMIT)
  const result = await call(served.client, 'session_log', { conversation_id: 'at-bound', messages })
  expect(result.isError, textOf(result)).toBeFalsy()
  expect(result.structuredContent).toMatchObject({ stored: 50 })
})

it('a call over the bound is refused naming the bound, and nothing is stored', async () => {
  const messages = [{ id: 'big', role: 'user', content: 'x'.repeat(MAX_CALL_CHARS + 1) }]
  const result = await call(served.client, 'session_log', { conversation_id: 'over', messages })
  expect(result.isError).toBe(true)
  expect(textOf(result)).toContain('at most 1,500,000 characters')
  const two = heavy(MAX_CALL_CHARS + 100, 'o')
  const split = await call(served.client, 'session_log', { conversation_id: 'over', messages: two })
  expect(textOf(split)).toMatch(/at most 1,500,000 characters .*this one has 1,500,1\d\d/)
  await withStore(ws, async (store) => {
    const sessions = await store.listSessions({ userId: 'alice' })
    expect(sessions.map((s) => s.messageCount)).toEqual([50])
  })
})

it('a line over the transport cap gets a JSON-RPC error and a line on stderr, and the server goes on serving', async () => {
  const huge = 'y'.repeat(STDIO_LINE_LIMIT + 1_000)
  const error = await served.client
    .callTool({
      name: 'session_log',
      arguments: { conversation_id: 'huge', messages: [{ id: 'h', role: 'user', content: huge }] },
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  expect(error).toBeInstanceOf(McpError)
  expect((error as McpError).code).toBe(-32600)
  expect((error as McpError).message).toMatch(/reads lines of at most 10,485,760 bytes/)
  expect(served.stderr()).toMatch(/a request of 10,48\d,\d{3} bytes was refused unread/)
  await alive()
  // A notification over the cap (no id to answer) is reported too, and the server still answers.
  await served.transport.send({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: 1, reason: huge },
  })
  await alive()
  expect(served.stderr().match(/refused unread/g)).toHaveLength(2)
  expect(served.transport.pid).not.toBeNull()
})
