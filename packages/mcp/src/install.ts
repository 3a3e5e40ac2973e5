import { homedir } from 'node:os'
import { join } from 'node:path'

/** The clients `engram mcp install` knows, and where each one reads its MCP servers from. */
export const CLIENTS = {
  'claude-code': { label: 'Claude Code', file: (cwd: string) => join(cwd, '.mcp.json'), format: 'json' },
  cursor: { label: 'Cursor', file: (cwd: string) => join(cwd, '.cursor', 'mcp.json'), format: 'json' },
  codex: { label: 'Codex', file: () => join(homedir(), '.codex', 'config.toml'), format: 'toml' },
  generic: {
    label: 'any MCP client (mcp.json)',
    file: (cwd: string) => join(cwd, 'mcp.json'),
    format: 'json',
  },
} as const

export type ClientName = keyof typeof CLIENTS

/** How the client starts the server: an absolute command and its arguments (paths already absolute). */
export interface InstallOptions {
  command: string
  args: string[]
  /** The server's name in the client's list (default `engram`). */
  name?: string
}

/** One server entry as the JSON clients (`mcpServers`) and Codex (`mcp_servers`) both describe it. */
function serverEntry(options: InstallOptions) {
  return { command: options.command, args: options.args }
}

const tomlString = (value: string) => JSON.stringify(value)

/**
 * The configuration snippet for a client: the `mcpServers` JSON of Claude Code, Cursor and a generic
 * mcp.json, or Codex's `[mcp_servers.<name>]` TOML table. Pure: writing it is the caller's job.
 */
export function installSnippet(client: ClientName, options: InstallOptions): string {
  const name = options.name ?? 'engram'
  if (CLIENTS[client].format === 'toml') {
    return [
      `[mcp_servers.${name}]`,
      `command = ${tomlString(options.command)}`,
      `args = [${options.args.map(tomlString).join(', ')}]`,
      '',
    ].join('\n')
  }
  return `${JSON.stringify({ mcpServers: { [name]: serverEntry(options) } }, null, 2)}\n`
}

/**
 * The client's config file with the server added: JSON files keep their other keys and servers; a TOML
 * file gets the table appended. Returns null when the file already names a server called `name` in a way
 * this cannot merge safely (a TOML table of that name), so the caller asks the user to edit it by hand.
 */
export function mergeInto(
  client: ClientName,
  existing: string | null,
  options: InstallOptions,
): string | null {
  const name = options.name ?? 'engram'
  if (CLIENTS[client].format === 'toml') {
    if (existing?.includes(`[mcp_servers.${name}]`)) return null
    const base = existing && !existing.endsWith('\n') ? `${existing}\n` : (existing ?? '')
    return `${base}${base ? '\n' : ''}${installSnippet(client, options)}`
  }
  const parsed = existing?.trim() ? (JSON.parse(existing) as Record<string, unknown>) : {}
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null
  const servers = (parsed.mcpServers ?? {}) as Record<string, unknown>
  return `${JSON.stringify({ ...parsed, mcpServers: { ...servers, [name]: serverEntry(options) } }, null, 2)}\n`
}
