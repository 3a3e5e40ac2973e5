import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { EngramConfig } from '@engram/agent'
import {
  CLIENTS,
  type ClientName,
  installSnippet,
  MCP_ENV,
  mergeInto,
  resolveSettings,
} from '@engram/mcp/config'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { UsageError } from '../errors.ts'
import { defaultDatabase, unownedHint } from '../identity.ts'
import { cliCommand } from '../invocation.ts'
import type { Io } from '../output.ts'
import { type HttpOptions, registerTokens, serveHttp, withHttpOptions } from './mcp-http.ts'

interface McpOptions {
  user?: string
  project?: string
  readOnly?: boolean
  sessionLog?: boolean
  source?: string
  memoryFile?: string
  userFile?: string
}

interface InstallCommandOptions extends McpOptions {
  write?: boolean
}

const REMOTE_OR_URL = /^[a-z][a-z0-9+.-]*:/i

function withServerOptions(command: Command): Command {
  return command
    .option('--user <id>', 'the user whose memory the server serves (or ENGRAM_MCP_USER)')
    .option('--project <id>', 'a project of that user: its own scope (or ENGRAM_MCP_PROJECT)')
    .option(
      '--read-only',
      'no write tools (memory, session_log); opens the database read-only (it must exist)',
    )
    .option('--session-log', 'offer session_log, for clients that record their own turns')
    .option('--memory-file <path>', 'MEMORY.md (default from the config file)')
    .option('--user-file <path>', 'USER.md (default from the config file)')
}

/**
 * The server's settings: its flags, ENGRAM_MCP_*, the config's `[mcp]` table, and, when none of them
 * names a user, the CLI's identity as the flags' user, so the server serves the person `engram chat`
 * writes for. `named` says whether a user was named (install then writes it into the client's config).
 */
function serverSettings(options: McpOptions, io: Io, config: EngramConfig, user: () => string) {
  const named = Boolean(options.user?.trim() || io.env[MCP_ENV.user]?.trim() || config.mcp?.user)
  return {
    named,
    settings: resolveSettings(named ? options : { ...options, user: user() }, io.env, config.mcp),
  }
}

/** `engram mcp`: the MCP server over stdio; `engram mcp install <client>`: its config snippet. */
export function registerMcp(program: Command, io: Io): void {
  const mcp = withHttpOptions(
    withServerOptions(
      program
        .command('mcp')
        .description(
          'serve the memory to an MCP client over stdio (stdout carries only protocol messages), or over HTTP with --http',
        ),
    ),
  )
    .option('--source <name>', 'the source recorded on logged sessions', 'mcp')
    .action(async (_options, command: Command) => {
      const ctx = createContext<McpOptions & HttpOptions>(command, io)
      const { options } = ctx
      if (options.http) return serveHttp(ctx)
      const config = ctx.config()
      const { settings } = serverSettings(options, io, config, ctx.user)
      // The server (and the MCP SDK under it) loads only for the command that serves.
      const { runStdio } = await import('@engram/mcp')
      await runStdio({
        storage: config.storage,
        memoryFiles: {
          ...config.memoryFiles,
          ...(options.memoryFile ? { memoryPath: resolve(options.memoryFile) } : {}),
          ...(options.userFile ? { userPath: resolve(options.userFile) } : {}),
        },
        ...settings,
        source: options.source ?? 'mcp',
        hint: (store) => unownedHint(store, settings.scope.user, cliCommand(io)),
        stdin: io.stdin,
        stdout: io.stdout,
        stderr: io.stderr,
      })
    })

  registerTokens(mcp, io)

  withServerOptions(
    mcp
      .command('install')
      .description('print (or --write) the MCP config for claude-code, cursor, codex or generic')
      .argument('<client>', Object.keys(CLIENTS).join(', ')),
  )
    .option('--write', "merge it into the client's config file instead of printing it")
    .action(async (client: string, _options, command: Command) => {
      if (!(client in CLIENTS)) {
        throw new UsageError(
          `Unknown client ${JSON.stringify(client)}: use one of ${Object.keys(CLIENTS).join(', ')}.`,
        )
      }
      const name = client as ClientName
      const ctx = createContext<InstallCommandOptions>(command, io)
      const { options } = ctx
      const config = ctx.config()
      // The server finds its user as every command does (ENGRAM_USER, the config, the OS account) unless
      // one is named here: a user baked in would part from the chat's the day ENGRAM_USER changes.
      const { settings, named } = serverSettings(options, io, config, ctx.user)
      const db = config.storage.url ?? defaultDatabase(io.env)
      const args = [
        realpathSync(process.argv[1] ?? 'engram'),
        'mcp',
        '--db',
        db === ':memory:' || REMOTE_OR_URL.test(db) ? db : resolve(db),
        '--memory-file',
        resolve(options.memoryFile ?? config.memoryFiles.memoryPath),
        '--user-file',
        resolve(options.userFile ?? config.memoryFiles.userPath),
        ...(config.origin?.file ? ['--config', config.origin.file] : []),
        ...(named ? ['--user', settings.scope.user] : []),
        ...(settings.scope.project ? ['--project', settings.scope.project] : []),
        ...(settings.readOnly ? ['--read-only'] : []),
        ...(settings.sessionLog ? ['--session-log'] : []),
      ]
      const install = { command: process.execPath, args }
      const file = CLIENTS[name].file(process.cwd())
      if (!options.write) {
        io.stderr.write(`# ${CLIENTS[name].label}: add this to ${file} (or rerun with --write)\n`)
        io.stdout.write(installSnippet(name, install))
        return
      }
      const merged = mergeInto(name, existsSync(file) ? readFileSync(file, 'utf8') : null, install)
      if (merged === null) {
        throw new UsageError(
          `${file} already configures a server named engram (or is not a JSON object); edit it by hand:\n${installSnippet(name, install)}`,
        )
      }
      mkdirSync(dirname(file), { recursive: true })
      const temp = `${file}.${process.pid}.tmp`
      writeFileSync(temp, merged, { mode: 0o600 })
      renameSync(temp, file)
      ctx.out.line(`Wrote the engram MCP server to ${file} (${CLIENTS[name].label}).`)
    })
}
