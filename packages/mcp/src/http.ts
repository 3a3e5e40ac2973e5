import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { MemoryFiles, type MemoryFilesConfig } from '@engram/agent'
import { redactSecrets } from '@engram/compressor'
import {
  type AccessToken,
  EngramError,
  listAccessTokens,
  openStore,
  type Store,
  type StoreOptions,
  verifyAccessToken,
} from '@engram/core'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { SessionEvents } from './http-events.ts'
import { hostGuard, RateLimit } from './http-guard.ts'
import type { Scope } from './scope.ts'
import { createEngramMcp, type EngramMcp } from './server.ts'
import { DEFAULT_RATE_LIMIT } from './settings.ts'

/** The one path the server answers on. */
export const MCP_PATH = '/mcp'
/** The largest request body read (bytes); a larger one is answered 413 with a JSON-RPC error. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

export interface RunHttpOptions {
  storage: StoreOptions
  /** The limits of the memory files; their paths are per scope, under `memoryDir`. */
  memoryFiles: MemoryFilesConfig
  /** Each user's memory files live in `<memoryDir>/<user>/` (a project's in `<user>/projects/<project>/`). */
  memoryDir: string
  /** Default 127.0.0.1. */
  host?: string
  /** 0: a free port (the URL is passed to onListening). */
  port: number
  /** Host names (name or name:port) accepted besides the loopback names. */
  allowedHosts?: string[]
  /** Origins (scheme://host:port) of browser pages accepted besides the loopback ones. */
  allowedOrigins?: string[]
  rateLimitPerMinute?: number
  sessionLog?: boolean
  source?: string
  stderr?: NodeJS.WritableStream
  onListening?: (url: string) => void
  /** Resolves when the server should stop (the CLI: SIGINT or SIGTERM). */
  stop: Promise<unknown>
}

/** One client's session: its transport, its server, and the token that opened it. */
interface Session {
  tokenId: string
  transport: StreamableHTTPServerTransport
  mcp: EngramMcp
}

/** The memory files of a scope: each user (and each of their projects) has their own. */
function scopedMemoryFiles(base: MemoryFilesConfig, memoryDir: string, scope: Scope): MemoryFilesConfig {
  const dir = join(memoryDir, scope.user, ...(scope.project ? ['projects', scope.project] : []))
  return { ...base, memoryPath: join(dir, 'MEMORY.md'), userPath: join(dir, 'USER.md') }
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  if (res.headersSent) return void res.end()
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000 - (status === 401 ? 1 : 0), message }, id: null }),
  )
}

const bearer = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1]

/**
 * Serves MCP over Streamable HTTP (the SDK's transport, with sessions and resumable streams) to every
 * holder of a token of the store: each session is scoped by the token that opened it (user, project,
 * read-only), and every request presents that token again, so a revoked or expired one stops working at
 * once. Refuses to start without an active token. Runs until `stop` resolves.
 */
export async function runHttp(options: RunHttpOptions): Promise<void> {
  const stderr = options.stderr ?? process.stderr
  const log = (line: string) => void stderr.write(`${line}\n`)
  const host = options.host ?? '127.0.0.1'
  const store = await openStore(options.storage)
  const sessions = new Map<string, Session>()
  const http = createServer()
  try {
    await requireActiveToken(store)
    const limit = new RateLimit(options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT)
    http.on('request', (req, res) => {
      serve(req, res).catch((error: unknown) => {
        log(`engram mcp: ${redactSecrets(String((error as Error)?.message ?? error)).slice(0, 300)}`)
        reply(res, 500, 'Internal error: the request failed; the server goes on serving.')
      })
    })
    const port = await listen(http, host, options.port)
    const guard = hostGuard(
      port,
      [...(LOOPBACK.has(host) ? [] : [host]), ...(options.allowedHosts ?? [])],
      options.allowedOrigins ?? [],
    )

    async function openSession(token: AccessToken): Promise<Session> {
      const scope: Scope = token.project
        ? { user: token.userId, project: token.project }
        : { user: token.userId }
      const mcp = createEngramMcp({
        store,
        memory: new MemoryFiles(scopedMemoryFiles(options.memoryFiles, options.memoryDir, scope)),
        scope,
        readOnly: token.readOnly,
        sessionLog: options.sessionLog ?? false,
        source: options.source ?? 'mcp',
        log,
      })
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        eventStore: new SessionEvents(),
        maxRequestBodySize: MAX_REQUEST_BYTES,
        onsessioninitialized: (id) => void sessions.set(id, session),
        onsessionclosed: (id) => void sessions.delete(id),
      })
      const session: Session = { tokenId: token.id, transport, mcp }
      let closed = false
      transport.onclose = () => {
        if (closed) return
        closed = true
        if (transport.sessionId) sessions.delete(transport.sessionId)
        void mcp.close().catch(() => undefined)
      }
      await mcp.server.connect(transport)
      await mcp.watch()
      return session
    }

    async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
      if (!guard.host(req.headers.host) || !guard.origin(req.headers.origin))
        return reply(
          res,
          403,
          'Forbidden: this Host or Origin is not one this server answers (DNS-rebinding protection). Connect through an allowed name, or start the server with --allowed-host / --allowed-origin.',
        )
      if (new URL(req.url ?? '/', 'http://x').pathname !== MCP_PATH)
        return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`)
      const secret = bearer(req.headers.authorization)
      const token = secret ? await verifyAccessToken(store, secret) : null
      if (!token)
        return reply(
          res,
          401,
          'Unauthorized: send Authorization: Bearer <token> with a token from `engram mcp token create` that is not revoked or expired.',
          {
            'www-authenticate': 'Bearer realm="engram"',
          },
        )
      if (!limit.take(token.id))
        return reply(
          res,
          429,
          'Too many requests for this token: wait a few seconds (or raise --rate-limit).',
          { 'retry-after': '5' },
        )
      const id = req.headers['mcp-session-id']
      if (typeof id === 'string') {
        const session = sessions.get(id)
        // A session is reachable only with the token that opened it: another token sees no such session.
        if (!session || session.tokenId !== token.id)
          return reply(res, 404, 'Session not found: initialize a new one.')
        return session.transport.handleRequest(req, res)
      }
      if (req.method !== 'POST')
        return reply(res, 400, 'Bad request: initialize a session with a POST first.')
      const session = await openSession(token)
      await session.transport.handleRequest(req, res)
      // Not an initialize request (or a refused one): no session came of it.
      if (!session.transport.sessionId) await session.transport.close()
    }

    log(
      `engram mcp: serving over HTTP at http://${host.includes(':') ? `[${host}]` : host}:${port}${MCP_PATH} (each token's scope)`,
    )
    options.onListening?.(`http://${host.includes(':') ? `[${host}]` : host}:${port}${MCP_PATH}`)
    await options.stop
  } finally {
    await new Promise<void>((resolve) => {
      http.close(() => resolve())
      http.closeAllConnections()
    })
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)))
    await store.close()
  }
}

/** A server with no token to accept would refuse everyone: it does not start, and says how to make one. */
async function requireActiveToken(store: Store): Promise<void> {
  const now = Date.now()
  const active = (await listAccessTokens(store)).some(
    (t) => t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now),
  )
  if (!active)
    throw new EngramError(
      'INVALID_CONFIG',
      'engram mcp --http serves only holders of a token, and this database has none that is active. Create one with `engram mcp token create --user <id>` (with the same --db), then start the server again.',
    )
}

function listen(server: ReturnType<typeof createServer>, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}
