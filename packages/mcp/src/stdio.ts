import { MemoryFiles, type MemoryFilesConfig } from '@engram/agent'
import { redactSecrets } from '@engram/compressor'
import { openStore, type Store, type StoreOptions } from '@engram/core'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Scope } from './scope.ts'
import { describeScope } from './scope.ts'
import { createEngramMcp } from './server.ts'
import { LineLimit, type OversizedLine, STDIO_LINE_LIMIT } from './stdio-lines.ts'
import { MAX_CALL_CHARS } from './tools/session-log.ts'

const bytes = (n: number) => n.toLocaleString('en-US')

/** What the server says of a dropped line: on stderr always, and to the client when the request id is known. */
function oversized(line: OversizedLine): string {
  return `engram mcp: a request of ${bytes(line.bytes)} bytes was refused unread: MCP's stdio transport reads lines of at most ${bytes(STDIO_LINE_LIMIT)} bytes. Nothing was done; the server goes on serving. Send less per call (session_log takes at most ${bytes(MAX_CALL_CHARS)} characters a call).`
}

export interface RunStdioOptions {
  storage: StoreOptions
  memoryFiles: MemoryFilesConfig
  scope: Scope
  readOnly?: boolean
  sessionLog?: boolean
  source?: string
  /** A line for stderr once the store is open (the CLI names sessions the scope does not see), or null. */
  hint?: (store: Store) => Promise<string | null>
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
  // Read-only opens the database read-only: searches leave it byte for byte as it was, a missing one is an error.
  const store = await openStore(options.readOnly ? { ...options.storage, readOnly: true } : options.storage)
  const mcp = createEngramMcp({
    store,
    memory: new MemoryFiles(options.memoryFiles),
    scope: options.scope,
    readOnly: options.readOnly ?? false,
    sessionLog: options.sessionLog ?? false,
    source: options.source ?? 'mcp',
    log,
  })
  const stdin = options.stdin ?? process.stdin
  // The SDK's transport closes on a line over its buffer: the server would end, silently. Such a line is
  // dropped before it, and answered with a JSON-RPC error when its id can be read.
  const lines = new LineLimit(STDIO_LINE_LIMIT, (line) => {
    const message = oversized(line)
    log(message)
    if (line.id !== undefined)
      void transport
        .send({ jsonrpc: '2.0', id: line.id, error: { code: -32600, message } })
        .catch(() => undefined)
  })
  const transport = new StdioServerTransport(lines as never, (options.stdout ?? process.stdout) as never)
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
    stdin.once('end', resolve)
  })
  stdin.pipe(lines)
  // A line that is not a JSON-RPC message is skipped by the SDK; say so (clipped, secrets redacted).
  mcp.server.server.onerror = (error) =>
    log(`engram mcp: ${redactSecrets(error.message.slice(0, 300))} (the server goes on serving)`)
  try {
    const hint = await options.hint?.(store).catch(() => null)
    if (hint) log(`engram mcp: ${hint}`)
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
