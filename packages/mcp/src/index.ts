// The Engram MCP server: the store and memory files for any MCP client, scoped to one user.
export { BUDGETS } from './budget.ts'
export * from './config.ts'
export type { McpStore } from './deps.ts'
export { MAX_REQUEST_BYTES, MCP_PATH, type RunHttpOptions, runHttp } from './http.ts'
export { MEMORY_URI } from './resources.ts'
export { createEngramMcp, type EngramMcp, type EngramMcpOptions } from './server.ts'
export { type RunStdioOptions, runStdio } from './stdio.ts'
export { loggedSessionId } from './tools/session-log.ts'
