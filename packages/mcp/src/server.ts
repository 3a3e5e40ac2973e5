import type { MemoryFiles } from '@engram/agent'
import type { TokenCounter } from '@engram/compressor'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Budget } from './budget.ts'
import type { McpStore, ToolDeps } from './deps.ts'
import { registerStartPrompt } from './prompt.ts'
import { MemoryResources } from './resources.ts'
import type { Scope } from './scope.ts'
import { registerMemoryTools } from './tools/memory.ts'
import { registerSessionLog } from './tools/session-log.ts'
import { registerSessionTools } from './tools/sessions.ts'

const SERVER_NAME = 'engram'
const SERVER_VERSION = '0.1.0'

export interface EngramMcpOptions {
  store: McpStore
  memory: MemoryFiles
  /** Whose data the server serves, from its configuration; no argument of a call can change it. */
  scope: Scope
  /** Leaves the write tools out (`memory`, `session_log`). */
  readOnly?: boolean
  /** Offers `session_log`, for clients that record their own turns (off unless configured). */
  sessionLog?: boolean
  /** The client name recorded as the source of logged sessions (default `mcp`). */
  source?: string
  tokenCounter?: TokenCounter
  /** Diagnostics; the stdio runner sends them to stderr (stdout carries only protocol messages). */
  log?: (line: string) => void
}

export interface EngramMcp {
  server: McpServer
  /** Starts announcing changes of the memory files made by any process. */
  watch(): Promise<void>
  close(): Promise<void>
}

/**
 * The Engram MCP server: session_search, session_read, sessions_list, memory_show (and memory,
 * session_log when writable and configured), the memory files as subscribable resources and the
 * start_session prompt. Nothing on a call's path calls a model. Not yet connected: `server.connect(transport)`.
 */
export function createEngramMcp(options: EngramMcpOptions): EngramMcp {
  const log = options.log ?? (() => undefined)
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'Engram memory' },
    {
      // The SDK answers logging/setLevel and keeps each session's level; the server logs nothing to
      // clients yet, so any level is honoured by sending nothing below it.
      capabilities: { logging: {} },
      instructions:
        'Engram is your durable memory: search past sessions with session_search (then session_read), keep durable facts with the memory tool. Every result names the scope (user, project) it covers.',
    },
  )
  const deps: ToolDeps = {
    store: options.store,
    memory: options.memory,
    scope: options.scope,
    budget: new Budget(options.tokenCounter),
  }
  const resources = new MemoryResources(server, options.memory, log)
  const writable = !options.readOnly
  registerSessionTools(server, deps)
  registerMemoryTools(server, deps, { writable, onWrite: () => resources.schedule() })
  if (writable && options.sessionLog) registerSessionLog(server, deps, options.source ?? 'mcp')
  registerStartPrompt(server, deps)
  return {
    server,
    watch: () => resources.watch(),
    async close() {
      resources.close()
      await server.close()
    },
  }
}
