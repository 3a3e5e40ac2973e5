import { EngramError } from '@engram/core'

/**
 * Whose data a server serves: one user and, optionally, one of their projects. It comes from the server's
 * configuration, never from a tool's arguments, so a model cannot widen it by guessing or omitting an id.
 */
export interface Scope {
  user: string
  project?: string
}

/** What every result carries, so the client (and the model) sees which data was searched. */
export interface ScopeReport {
  user: string
  project: string | null
}

// Letters, digits and `._@+-`: ids that paths, URLs and shells keep as they are. `/` is the separator below.
const ID = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/

function checkId(value: string, what: string, fix: string): string {
  const trimmed = value.trim()
  if (!ID.test(trimmed)) {
    throw new EngramError(
      'INVALID_CONFIG',
      `The MCP server's ${what} ${JSON.stringify(value)} is not an id: use 1 to 128 letters, digits or ._@+- (starting with a letter or digit). ${fix}`,
    )
  }
  return trimmed
}

/** Validates a configured scope. Throws INVALID_CONFIG naming the bad id. */
export function parseScope(user: string | undefined, project: string | undefined): Scope {
  if (user === undefined || user.trim() === '') {
    throw new EngramError(
      'INVALID_CONFIG',
      'The MCP server needs the user whose memory it serves: pass --user <id>, set ENGRAM_MCP_USER, or set user in the [mcp] table of the config file.',
    )
  }
  const scope: Scope = { user: checkId(user, 'user id', 'Fix --user or ENGRAM_MCP_USER.') }
  if (project !== undefined && project.trim() !== '') {
    scope.project = checkId(project, 'project id', 'Fix --project or ENGRAM_MCP_PROJECT.')
  }
  return scope
}

/**
 * The user id the store files the scope's sessions under: the user alone, or `user/project`. A project is
 * its own scope (a server for the user alone does not see its sessions, and the other way round), so one
 * exact match in SQL keeps every read and write inside it.
 */
export function scopeKey(scope: Scope): string {
  return scope.project === undefined ? scope.user : `${scope.user}/${scope.project}`
}

export function scopeReport(scope: Scope): ScopeReport {
  return { user: scope.user, project: scope.project ?? null }
}

/** `user "alice", project "web"` */
export function describeScope(scope: Scope): string {
  return `user ${JSON.stringify(scope.user)}${scope.project === undefined ? '' : `, project ${JSON.stringify(scope.project)}`}`
}
