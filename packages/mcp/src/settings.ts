import { EngramError } from '@engram/core'
import { parseScope, type Scope } from './scope.ts'

/** The server's own settings, wherever they come from. */
export interface McpSettings {
  scope: Scope
  readOnly: boolean
  sessionLog: boolean
}

/** One source of settings: command-line flags, or the `[mcp]` table of a config file. */
export interface McpSettingsInput {
  user?: string | undefined
  project?: string | undefined
  readOnly?: boolean | undefined
  sessionLog?: boolean | undefined
}

/** Requests per minute per token of the HTTP server unless configured. */
export const DEFAULT_RATE_LIMIT = 600

/** The environment variables the server reads. */
export const MCP_ENV = {
  user: 'ENGRAM_MCP_USER',
  project: 'ENGRAM_MCP_PROJECT',
  readOnly: 'ENGRAM_MCP_READ_ONLY',
  sessionLog: 'ENGRAM_MCP_SESSION_LOG',
} as const

function envFlag(env: Record<string, string | undefined>, name: string): boolean | undefined {
  const value = env[name]?.trim().toLowerCase()
  if (value === undefined || value === '') return undefined
  if (['1', 'true', 'yes', 'on'].includes(value)) return true
  if (['0', 'false', 'no', 'off'].includes(value)) return false
  throw new EngramError('INVALID_CONFIG', `${name} must be 1 or 0 (got ${JSON.stringify(env[name])}).`)
}

/**
 * Merges the settings: flags first, then the environment, then the config file. The scope comes whole
 * from the first source that names a user (a project from another source would mix two scopes). Writes
 * are on and session_log off unless a source says otherwise; a read-only server never logs.
 */
export function resolveSettings(
  flags: McpSettingsInput,
  env: Record<string, string | undefined>,
  file: McpSettingsInput = {},
): McpSettings {
  const fromEnv: McpSettingsInput = {
    user: env[MCP_ENV.user],
    project: env[MCP_ENV.project],
    readOnly: envFlag(env, MCP_ENV.readOnly),
    sessionLog: envFlag(env, MCP_ENV.sessionLog),
  }
  const sources = [flags, fromEnv, file]
  const scoped = sources.find((source) => source.user?.trim()) ?? {}
  const readOnly = sources.map((s) => s.readOnly).find((v) => v !== undefined) ?? false
  const sessionLog = sources.map((s) => s.sessionLog).find((v) => v !== undefined) ?? false
  return { scope: parseScope(scoped.user, scoped.project), readOnly, sessionLog: sessionLog && !readOnly }
}
