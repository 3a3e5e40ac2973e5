import { MemoryFiles, type MemoryFilesConfig } from '@engram/agent'
import { openStore, type StoreOptions } from '@engram/core'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Scope } from './scope.ts'
import { describeScope } from './scope.ts'
import { createEngramMcp } from './server.ts'

export interface RunStdioOptions {
  storage: StoreOptions
  memoryFiles: MemoryFilesConfig
  scope: Scope
  readOnly?: boolean
  sessionLog?: boolean
  source?: string
  stdin?: NodeJS.ReadableStream
  stdout?: NodeJS.WritableStream
  /** Where diagnostics go (default process.stderr): stdout carries only protocol messages. */
  stderr?: NodeJS.WritableStream
}

/**
 * Serves MCP over stdio until the client closes stdin: opens the store, serves, closes the store. Anything
 * a library would print with console.log is sent to stderr, so no stray byte corrupts the protocol stream.
 */
export async function runStdio(options: RunStdioOptions): Promise<void> {
  const stderr = options.stderr ?? process.stderr
  const log = (line: string) => void stderr.write(`${line}\n`)
  for (const method of ['log', 'info', 'debug'] as const)
    console[method] = (...args: unknown[]) => log(args.map(String).join(' '))
  const store = await openStore(options.storage)
  const mcp = createEngramMcp({
    store,
    memory: new MemoryFiles(options.memoryFiles),
    scope: options.scope,
    readOnly: options.readOnly ?? false,
    sessionLog: options.sessionLog ?? false,
    source: options.source ?? 'mcp',
    log,
  })
  const transport = new StdioServerTransport(
    (options.stdin ?? process.stdin) as never,
    (options.stdout ?? process.stdout) as never,
  )
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
    ;(options.stdin ?? process.stdin).once('end', resolve)
  })
  try {
    await mcp.server.connect(transport)
    await mcp.watch()
    log(
      `engram mcp: serving ${describeScope(options.scope)}${options.readOnly ? ' (read-only)' : ''}${options.sessionLog && !options.readOnly ? ', session_log on' : ''}`,
    )
    await closed
  } finally {
    await mcp.close().catch(() => undefined)
    await store.close()
  }
}
