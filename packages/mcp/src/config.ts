/**
 * The server's configuration without the server (entry `@engram/mcp/config`): scopes, settings, the clients it
 * installs into and the HTTP server's default rate limit. Nothing here loads the MCP SDK, so a program that
 * only reads or checks the configuration (the engram CLI's other commands) does not pay for it.
 */
export { CLIENTS, type ClientName, type InstallOptions, installSnippet, mergeInto } from './install.ts'
export { parseScope, type Scope, type ScopeReport, scopeKey } from './scope.ts'
export {
  DEFAULT_RATE_LIMIT,
  MCP_ENV,
  type McpSettings,
  type McpSettingsInput,
  resolveSettings,
} from './settings.ts'
