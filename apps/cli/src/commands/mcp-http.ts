import { dirname, join, resolve } from 'node:path'
import { type AccessToken, createAccessToken, listAccessTokens, revokeAccessToken } from '@engram/core'
import { DEFAULT_RATE_LIMIT, parseScope } from '@engram/mcp/config'
import type { Command } from 'commander'
import { type Context, createContext } from '../context.ts'
import { UsageError, wholeOption } from '../errors.ts'
import type { Io } from '../output.ts'

/** The port `engram mcp --http` listens on unless told. */
const DEFAULT_HTTP_PORT = 8787

export interface HttpOptions {
  http?: boolean
  port?: string
  host?: string
  allowedHost?: string[]
  allowedOrigin?: string[]
  rateLimit?: string
  memoryDir?: string
  sessionLog?: boolean
  source?: string
  user?: string
  project?: string
  readOnly?: boolean
}

/** The options of `engram mcp` that only `--http` reads. */
export function withHttpOptions(command: Command): Command {
  return command
    .option('--http', 'serve over Streamable HTTP to holders of a token (see `engram mcp token`)')
    .option('--port <n>', `with --http: the port (default ${DEFAULT_HTTP_PORT}; 0 for a free one)`)
    .option('--host <address>', 'with --http: the address to bind (default 127.0.0.1, this machine only)')
    .option(
      '--allowed-host <name...>',
      'with --http: Host names (name or name:port) clients use besides localhost',
    )
    .option('--allowed-origin <origin...>', 'with --http: browser origins allowed besides localhost')
    .option('--rate-limit <n>', `with --http: requests per minute per token (default ${DEFAULT_RATE_LIMIT})`)
    .option(
      '--memory-dir <dir>',
      "with --http: the folder of each user's memory files (default beside the database's)",
    )
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM). */
const stopRequested = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })

/** `engram mcp --http`: the shared server; the scope of each session comes from its token. */
export async function serveHttp(ctx: Context<HttpOptions>): Promise<void> {
  const { options, io } = ctx
  const scoped = ['--user', '--project', '--read-only', '--memory-file', '--user-file'].filter(
    (flag) =>
      options[flag.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as keyof HttpOptions],
  )
  if (scoped.length > 0)
    throw new UsageError(
      `With --http the scope comes from each client's token, never from the command line: drop ${scoped.join(', ')} (make a token with \`engram mcp token create --user <id> [--project <id>] [--read-only]\`).`,
    )
  const config = ctx.config()
  const { runHttp } = await import('@engram/mcp')
  await runHttp({
    storage: config.storage,
    memoryFiles: config.memoryFiles,
    memoryDir: resolve(io.cwd, options.memoryDir ?? join(dirname(config.memoryFiles.memoryPath), 'users')),
    ...(options.host ? { host: options.host } : {}),
    port: wholeOption(options.port, '--port', DEFAULT_HTTP_PORT, { min: 0, max: 65_535 }),
    allowedHosts: options.allowedHost ?? [],
    allowedOrigins: options.allowedOrigin ?? [],
    rateLimitPerMinute: wholeOption(options.rateLimit, '--rate-limit', DEFAULT_RATE_LIMIT),
    sessionLog: Boolean(options.sessionLog),
    source: options.source ?? 'mcp',
    stderr: io.stderr,
    stop: stopRequested(),
  })
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `90d`, `12h`, `30m` from now, or a date (`2027-01-31`); milliseconds since the epoch. */
function parseExpiry(value: string, now = Date.now()): number {
  const relative = /^(\d{1,6})([mhd])$/.exec(value.trim())
  if (relative) return now + Number(relative[1]) * (UNITS[relative[2] as string] as number)
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(at) || at <= now)
    throw new UsageError(
      `--expires must be a span (90d, 12h, 30m) or a future date (2027-01-31) (got ${JSON.stringify(value)}).`,
    )
  return at
}

const status = (token: AccessToken, now: number) =>
  token.revokedAt !== null
    ? 'revoked'
    : token.expiresAt !== null && token.expiresAt <= now
      ? 'expired'
      : 'active'

const day = (ms: number | null) =>
  ms === null ? 'never' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ')

/** `engram mcp token create|list|revoke`: the bearer tokens of `engram mcp --http`, kept (hashed) in the store. */
export function registerTokens(mcp: Command, io: Io): void {
  const token = mcp
    .command('token')
    .description('the bearer tokens of `engram mcp --http` (stored hashed in the database)')
  token
    .command('create')
    .description('make a token for --user <id> [--project <id>] [--read-only]; the secret is printed once')
    .option('--expires <when>', 'a span (90d, 12h, 30m) or a date (2027-01-31); default never')
    .action(async (_options, command: Command) => {
      // --user, --project and --read-only are `engram mcp`'s own options, read through both commands'.
      const ctx = createContext<HttpOptions & { expires?: string }>(command, io)
      const { options } = ctx
      if (!options.user)
        throw new UsageError('Name whose token it is: `engram mcp token create --user <id>`.')
      const scope = parseScope(options.user, options.project)
      const expiresAt = options.expires === undefined ? null : parseExpiry(options.expires)
      const made = await ctx.withStore((store) =>
        createAccessToken(store, {
          userId: scope.user,
          project: scope.project ?? null,
          readOnly: Boolean(options.readOnly),
          expiresAt,
        }),
      )
      if (ctx.out.json) return ctx.out.printJson(made)
      ctx.out.line(made.secret)
      ctx.out.note(
        `Token ${made.token.id} for user ${JSON.stringify(scope.user)}${scope.project ? `, project ${JSON.stringify(scope.project)}` : ''}${made.token.readOnly ? ', read-only' : ''}, expires ${day(made.token.expiresAt)}. The secret above is shown this once: give it to the client (Authorization: Bearer <secret>); revoke it with \`engram mcp token revoke ${made.token.id}\`.`,
      )
    })
  token
    .command('list')
    .description('every token: id, scope, expiry and whether it is active (never the secrets)')
    .action(async (_options, command: Command) => {
      const ctx = createContext(command, io)
      const tokens = await ctx.withStore((store) => listAccessTokens(store), { create: false })
      if (ctx.out.json) return ctx.out.printJson({ tokens })
      if (tokens.length === 0)
        return ctx.out.line('No tokens yet. Make one with `engram mcp token create --user <id>`.')
      const now = Date.now()
      ctx.out.table(
        ['ID', 'USER', 'PROJECT', 'ACCESS', 'CREATED', 'EXPIRES', 'STATUS'],
        tokens.map((t) => [
          t.id,
          t.userId,
          t.project ?? '',
          t.readOnly ? 'read' : 'read-write',
          day(t.createdAt),
          day(t.expiresAt),
          status(t, now),
        ]),
      )
    })
  token
    .command('revoke')
    .description('revoke a token by its id (from `engram mcp token list`); it stops working at once')
    .argument('<id>', 'the token id (tok_...)')
    .action(async (id: string, _options, command: Command) => {
      const ctx = createContext(command, io)
      const revoked = await ctx.withStore((store) => revokeAccessToken(store, id), { create: false })
      if (!revoked)
        throw new UsageError(
          `No active token ${JSON.stringify(id)}: see the ids with \`engram mcp token list\`.`,
        )
      if (ctx.out.json) return ctx.out.printJson({ revoked: id })
      ctx.out.line(`Revoked ${id}.`)
    })
}
