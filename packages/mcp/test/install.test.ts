import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { openStore } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { expect, it } from 'vitest'
import { workspace } from './helpers.ts'

const ENGRAM_BIN = fileURLToPath(new URL('../../../apps/cli/bin/engram.js', import.meta.url))

it('engram mcp install cursor --write: the client starts the server from the file and sees the tools', async () => {
  const ws = workspace()
  const env = { PATH: process.env.PATH ?? '', HOME: ws.dir }
  const file = join(ws.dir, '.cursor', 'mcp.json')
  mkdirSync(join(ws.dir, '.cursor'))
  writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'other-server' } } }))
  const args = [
    'mcp',
    'install',
    'cursor',
    '--write',
    '--db',
    'rel/engram.db',
    '--user',
    'alice',
    '--read-only',
  ]
  await promisify(execFile)(process.execPath, [ENGRAM_BIN, ...args], { cwd: ws.dir, env })
  const config = JSON.parse(readFileSync(file, 'utf8'))
  expect(config.mcpServers.other).toEqual({ command: 'other-server' })
  const entry = config.mcpServers.engram as { command: string; args: string[] }
  const after = (flag: string) => entry.args[entry.args.indexOf(flag) + 1] as string
  expect(entry.command).toBe(process.execPath)
  expect(after('--db')).toBe(join(ws.dir, 'rel', 'engram.db'))
  for (const flag of ['--memory-file', '--user-file']) expect(isAbsolute(after(flag))).toBe(true)
  expect(after('--user')).toBe('alice')

  // Started elsewhere (clients pick the working folder), it finds the same database (a read-only server
  // opens an existing one).
  mkdirSync(join(ws.dir, 'rel'))
  await (await openStore({ url: join(ws.dir, 'rel', 'engram.db') })).close()
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env,
    cwd: '/',
    stderr: 'pipe',
  })
  const client = new Client({ name: 'cursor-like', version: '1' })
  await client.connect(transport)
  const names = (await client.listTools()).tools.map((t) => t.name).sort()
  expect(names).toEqual(['memory_show', 'session_read', 'session_search', 'sessions_list'])
  await client.close()
})
