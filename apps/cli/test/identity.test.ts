import { mkdirSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { openStore } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { engram, engramBin, engramJson, type Json, tempDir } from './helpers.ts'

const me = userInfo().username

/** A person's machine: a home folder, and the environment a terminal and an MCP client both get. */
function machine() {
  const home = tempDir('engram-identity-')
  const env = { PATH: process.env.PATH ?? '', HOME: home }
  const folder = (name: string) => {
    const dir = join(home, name)
    mkdirSync(dir, { recursive: true })
    return dir
  }
  return { home, env, folder, database: join(home, '.local', 'share', 'engram', 'engram.db') }
}

/** Starts the server exactly as `engram mcp install generic` wrote it, from another folder, over stdio. */
async function installedServer(env: Record<string, string>, cwd: string) {
  const printed = await engramBin(['mcp', 'install', 'generic'], { cwd, env })
  expect(printed.code, printed.stderr).toBe(0)
  const entry = JSON.parse(printed.stdout).mcpServers.engram as { command: string; args: string[] }
  const transport = new StdioClientTransport({ ...entry, env, cwd: '/', stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: 'client', version: '1' })
  await client.connect(transport)
  const search = async (query: string) => {
    const result = (await client.callTool({ name: 'session_search', arguments: { query } }, undefined, {
      timeout: 600_000,
    })) as CallToolResult
    const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n')
    return { text, scope: (result.structuredContent as Json | undefined)?.scope }
  }
  // The server names its scope on stderr once it serves (after any hint): wait for that line, not a timer.
  await new Promise<void>((resolve, reject) => {
    const check = () => (/serving user/.test(stderr) ? resolve() : undefined)
    transport.stderr?.on('data', check)
    transport.stderr?.on('end', () => reject(new Error(`the server exited: ${stderr}`)))
    check()
  })
  return { entry, client, search, stderr: () => stderr }
}

describe('one identity for a person', () => {
  it("a user's `engram chat` session is found by session_search of the server `engram mcp install` configures", async () => {
    const { env, folder, database } = machine()
    const chat = await engramBin(['chat'], {
      cwd: folder('project-a'),
      env,
      input: 'Remember that the kiwi deployment listens on port 8443\n',
    })
    expect(chat.code, chat.stderr).toBe(0)

    const server = await installedServer(env, folder('project-b'))
    try {
      const after = (flag: string) => server.entry.args[server.entry.args.indexOf(flag) + 1]
      // The user's data folder, absolute; no user baked in: the server finds it as the chat did.
      expect(after('--db')).toBe(database)
      expect(after('--memory-file')).toBe(join(database, '..', 'MEMORY.md'))
      expect(server.entry.args).not.toContain('--user')
      const { text, scope } = await server.search('kiwi deployment port')
      expect(text).toContain('8443')
      expect(scope).toEqual({ user: me, project: null })
    } finally {
      await server.client.close()
    }
  })

  it('sessions stored without a user are named, listed and adopted, never served silently', async () => {
    const { env, folder, database } = machine()
    mkdirSync(join(database, '..'), { recursive: true })
    const store = await openStore({ url: database })
    const old = await store.createSession({ source: 'cli' })
    await store.appendMessage(old.id, { role: 'user', content: 'the walrus backup runs at 03:00 nightly' })
    const theirs = await store.createSession({ source: 'cli', userId: 'someone-else' })
    await store.appendMessage(theirs.id, { role: 'user', content: 'the walrus secret is 1234' })
    await store.close()

    const before = await installedServer(env, folder('a'))
    try {
      expect((await before.search('walrus backup')).text).not.toContain('03:00')
      expect(before.stderr()).toContain(
        `1 session in this database has no user, so it is not searched as ${JSON.stringify(me)}'s`,
      )
      expect(before.stderr()).toContain(`sessions adopt --user ${me}`)
    } finally {
      await before.client.close()
    }

    const cwd = folder('b')
    const unowned = await engramJson<Json>(['sessions', '--unowned'], { cwd, env })
    expect(unowned.sessions.map((s: Json) => s.id)).toEqual([old.id])
    const adopted = await engram(['sessions', 'adopt', '--user', me], { cwd, env })
    expect(adopted.stdout).toContain(`1 session now belongs to user ${JSON.stringify(me)}.`)
    expect((await engramJson<Json>(['sessions', '--unowned'], { cwd, env })).sessions).toEqual([])

    const after = await installedServer(env, folder('c'))
    try {
      const { text } = await after.search('walrus')
      expect(text).toContain('03:00')
      expect(text).not.toContain('1234') // another user's session stays theirs
      expect(after.stderr()).not.toContain('no user')
    } finally {
      await after.client.close()
    }
  })

  it("a chat resumes only its user's sessions, and says how to adopt one without a user", async () => {
    const { env, folder, database } = machine()
    mkdirSync(join(database, '..'), { recursive: true })
    const store = await openStore({ url: database })
    const old = await store.createSession({ source: 'cli' })
    await store.appendMessage(old.id, { role: 'user', content: 'hello' })
    await store.close()
    const cwd = folder('p')
    const latest = await engram(['chat', '--resume', 'latest'], { cwd, env })
    expect(latest.code).toBe(1)
    expect(latest.stderr).toContain(`sessions adopt --user ${me}`)
    const byId = await engram(['chat', '--resume', old.id], { cwd, env })
    expect(byId.code).toBe(1)
    expect(byId.stderr).toContain(`sessions adopt --user ${me} --session ${old.id}`)
    await engram(['sessions', 'adopt', '--user', me, '--session', old.id], { cwd, env })
    const resumed = await engram(['chat', '--resume', 'latest'], { cwd, env, input: 'again\n' })
    expect(resumed.stderr).toContain(`Resumed session ${old.id.slice(0, 8)}`)
  })

  it('ENGRAM_USER names the user; an id that is not one is refused with the fix', async () => {
    const { env, folder } = machine()
    const cwd = folder('p')
    await engram(['chat'], { cwd, env: { ...env, ENGRAM_USER: 'alice' }, input: 'hi there\n' })
    const listed = await engramJson<Json>(['sessions', '--user', 'alice'], { cwd, env })
    expect(listed.sessions).toHaveLength(1)
    const bad = await engram(['chat'], { cwd, env: { ...env, ENGRAM_USER: 'a b' }, input: 'hi\n' })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('The user "a b" (from ENGRAM_USER) is not an id')
  })
})
