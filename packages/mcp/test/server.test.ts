import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '@engram/agent'
import { openStore, type Store } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installSnippet, mergeInto } from '../src/install.ts'
import { parseScope, type Scope, scopeKey } from '../src/scope.ts'
import { createEngramMcp } from '../src/server.ts'
import { resolveSettings } from '../src/settings.ts'
import { call, memoryFiles, textOf, workspace } from './helpers.ts'

// In-process: the SDK's client and server over its in-memory transport, on a real store file.
const ws = workspace()
let store: Store

async function connect(scope: Scope, options: { readOnly?: boolean; sessionLog?: boolean } = {}) {
  const mcp = createEngramMcp({ store, memory: memoryFiles(ws), scope, ...options })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await mcp.server.connect(serverSide)
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(clientSide)
  return { client, close: () => Promise.all([client.close(), mcp.close()]) }
}

beforeAll(async () => {
  store = await openStore({ url: ws.db })
  for (const scope of [
    { user: 'alice' },
    { user: 'alice', project: 'web' },
    { user: 'alice', project: 'api' },
  ]) {
    const session = await store.createSession({
      source: 'cli',
      userId: scopeKey(scope),
      title: `walrus ${scope.project ?? 'none'}`,
    })
    await store.appendMessage(session.id, {
      role: 'user',
      content: `walrus notes for ${scope.project ?? 'no project'}`,
    })
  }
})

afterAll(() => store.close())

describe('read-only', () => {
  it('offers no write tool, and a call to one fails', async () => {
    const { client, close } = await connect({ user: 'alice' }, { readOnly: true, sessionLog: true })
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).not.toContain('memory')
    expect(names).not.toContain('session_log')
    expect(names).toContain('memory_show')
    const write = await call(client, 'memory', {
      target: 'memory',
      operations: [{ action: 'add', content: 'x' }],
    })
    expect(write.isError).toBe(true)
    expect((await memoryFiles(ws).read('memory')).entries).toEqual([])
    await close()
  })
})

describe('projects', () => {
  it('are scopes of their own: a project server sees its project only, and says so', async () => {
    const { client, close } = await connect({ user: 'alice', project: 'web' })
    const result = await call(client, 'session_search', { query: 'walrus', limit: 10 })
    expect(result.structuredContent).toMatchObject({ scope: { user: 'alice', project: 'web' } })
    expect(textOf(result)).toContain('walrus notes for web')
    expect(textOf(result)).not.toContain('for api')
    expect(textOf(result)).not.toContain('no project')
    const list = await call(client, 'sessions_list', {})
    expect((list.structuredContent as { sessions: unknown[] }).sessions).toHaveLength(1)
    await close()
  })
})

describe('session_search results', () => {
  it('carry the real hits in structuredContent, the rendered text in content, and declare them in outputSchema', async () => {
    const { client, close } = await connect({ user: 'alice', project: 'web' })
    const tool = (await client.listTools()).tools.find((t) => t.name === 'session_search')
    expect(Object.keys(tool?.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['hits', 'session', 'messages', 'sessions']),
    )
    const result = await call(client, 'session_search', { query: 'walrus' })
    const data = result.structuredContent as {
      kind: string
      hits: {
        kind: string
        sessionId: string
        title: string
        messages: { role: string; text: string; hit: boolean }[]
      }[]
    }
    expect(data.kind).toBe('hits')
    expect(data.hits).toHaveLength(1)
    const [hit] = data.hits
    expect(hit).toMatchObject({ kind: 'message', title: 'walrus web' })
    expect(hit?.messages).toEqual([
      expect.objectContaining({ role: 'user', text: 'walrus notes for web', hit: true }),
    ])
    // The text is the rendering of that data: the same session, the same quoted message.
    expect(textOf(result)).toContain(`session ${hit?.sessionId}`)
    expect(textOf(result)).toContain('> user: walrus notes for web')
    const read = await call(client, 'session_search', { session_id: hit?.sessionId })
    expect(read.structuredContent).toMatchObject({
      kind: 'session',
      session: { id: hit?.sessionId, title: 'walrus web', messageCount: 1 },
      messages: [{ role: 'user', text: 'walrus notes for web' }],
      total: 1,
    })
    const recent = await call(client, 'session_search', {})
    expect(recent.structuredContent).toMatchObject({ kind: 'recent', sessions: [{ id: hit?.sessionId }] })
    await close()
  })
})

describe('settings', () => {
  it('takes the scope whole from the first source naming a user, and needs one', () => {
    expect(
      resolveSettings({ user: 'alice' }, { ENGRAM_MCP_USER: 'bob', ENGRAM_MCP_PROJECT: 'x' }).scope,
    ).toEqual({ user: 'alice' })
    expect(resolveSettings({}, { ENGRAM_MCP_USER: 'bob', ENGRAM_MCP_PROJECT: 'x' }).scope).toEqual({
      user: 'bob',
      project: 'x',
    })
    expect(resolveSettings({}, {}, { user: 'carol', sessionLog: true })).toMatchObject({
      scope: { user: 'carol' },
      sessionLog: true,
    })
    expect(resolveSettings({ user: 'a', readOnly: true, sessionLog: true }, {})).toMatchObject({
      readOnly: true,
      sessionLog: false,
    })
    expect(() => resolveSettings({}, {})).toThrow(/--user <id>/)
    expect(() => resolveSettings({}, { ENGRAM_MCP_USER: 'a', ENGRAM_MCP_READ_ONLY: 'maybe' })).toThrow(
      /ENGRAM_MCP_READ_ONLY must be 1 or 0/,
    )
    for (const bad of ['a/b', '../x', '', ' ', 'a b', '*']) expect(() => parseScope(bad, undefined)).toThrow()
    expect(() => parseScope('alice', 'we/b')).toThrow(/project id/)
  })

  it('reads the [mcp] table of the config file, and refuses unknown keys in it', () => {
    const file = join(ws.dir, 'engram.toml')
    writeFileSync(file, '[mcp]\nuser = "carol"\nproject = "web"\nsession_log = true\n')
    const config = loadConfig({ file, env: {} })
    expect(resolveSettings({}, {}, config.mcp)).toEqual({
      scope: { user: 'carol', project: 'web' },
      readOnly: false,
      sessionLog: true,
    })
    writeFileSync(file, '[mcp]\nuser_id = "carol"\n')
    expect(() => loadConfig({ file, env: {} })).toThrow(/user_id/)
  })
})

describe('install snippets', () => {
  const install = { command: '/usr/bin/node', args: ['/opt/engram/bin/engram.js', 'mcp', '--user', 'alice'] }

  it('writes mcpServers JSON and the Codex TOML table', () => {
    expect(JSON.parse(installSnippet('cursor', install))).toEqual({ mcpServers: { engram: install } })
    expect(installSnippet('codex', install)).toBe(
      '[mcp_servers.engram]\ncommand = "/usr/bin/node"\nargs = ["/opt/engram/bin/engram.js", "mcp", "--user", "alice"]\n',
    )
  })

  it('merges into an existing file keeping what is there, and refuses what it cannot merge', () => {
    const existing = JSON.stringify({ mcpServers: { other: { command: 'x' } }, theme: 'dark' })
    expect(JSON.parse(mergeInto('claude-code', existing, install) as string)).toEqual({
      mcpServers: { other: { command: 'x' }, engram: install },
      theme: 'dark',
    })
    expect(mergeInto('generic', '[1]', install)).toBeNull()
    const toml = 'model = "o4"\n'
    expect(mergeInto('codex', toml, install)).toBe(`${toml}\n${installSnippet('codex', install)}`)
    expect(mergeInto('codex', `${toml}\n${installSnippet('codex', install)}`, install)).toBeNull()
  })
})
