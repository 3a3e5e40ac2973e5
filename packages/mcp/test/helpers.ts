import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MemoryFiles } from '@engram/agent'
import { openStore, type Store } from '@engram/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/** The `engram` command users run (its dist/, which vitest.build.ts builds before the tests). */
const ENGRAM_BIN = fileURLToPath(new URL('../../../apps/cli/bin/engram.js', import.meta.url))
const TEE = fileURLToPath(new URL('./fixtures/tee.mjs', import.meta.url))

export interface Workspace {
  dir: string
  db: string
  memoryPath: string
  userPath: string
}

export function workspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'engram-mcp-'))
  return {
    dir,
    db: join(dir, 'engram.db'),
    memoryPath: join(dir, 'MEMORY.md'),
    userPath: join(dir, 'USER.md'),
  }
}

export function memoryFiles(ws: Workspace): MemoryFiles {
  return new MemoryFiles({
    memoryPath: ws.memoryPath,
    userPath: ws.userPath,
    memoryCharLimit: 2_200,
    userCharLimit: 1_375,
    compactTriggerRatio: 0.9,
  })
}

export async function withStore<T>(ws: Workspace, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ url: ws.db })
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}

export interface Served {
  client: Client
  transport: StdioClientTransport
  stderr: () => string
  /** How the server process ended ("running" while it runs), with what it printed on stderr: for failures. */
  report: () => string
}

/**
 * Starts `engram mcp` as a child process and connects the SDK's own client over stdio. With `teeTo`, the
 * server runs under a pass-through that copies its stdout to that file.
 */
export async function serve(
  ws: Workspace,
  args: string[],
  options: { teeTo?: string } = {},
): Promise<Served> {
  const server = [
    ENGRAM_BIN,
    'mcp',
    '--db',
    ws.db,
    '--memory-file',
    ws.memoryPath,
    '--user-file',
    ws.userPath,
    ...args,
  ]
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: options.teeTo ? [TEE, options.teeTo, process.execPath, ...server] : server,
    env: { PATH: process.env.PATH ?? '', HOME: ws.dir },
    cwd: ws.dir,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: 'engram-test', version: '1.0.0' })
  const connecting = client.connect(transport)
  // The transport spawns the server inside connect() and forgets the process once it ends; keep its end.
  let ended = 'running'
  const child = (transport as unknown as { _process?: ChildProcess })._process
  child?.once('exit', (code, signal) => {
    ended = signal ? `killed by ${signal}` : `exited with code ${code}`
  })
  const report = () => `server ${transport.pid ?? child?.pid}: ${ended}; its stderr:\n${stderr}`
  await connecting.catch((error: unknown) => {
    throw new Error(`engram mcp did not start (${String(error)}); ${report()}`)
  })
  return { client, transport, stderr: () => stderr, report }
}

/** The text of a tool result. */
export const textOf = (result: CallToolResult | { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n')

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  // The SDK's default request timeout (60 s) is a wall-clock bound a loaded machine can pass; the test's own
  // timeout is the bound that counts.
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult
}
