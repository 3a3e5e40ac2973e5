import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAccessToken, openStore } from '@engram/core'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { PostgresServer } from '../../../core/test/postgres-server.ts'
import { connect, type HttpServer, startHttpServer } from '../http-helpers.ts'

const ENGRAM_BIN = fileURLToPath(new URL('../../../../apps/cli/bin/engram.js', import.meta.url))

export interface LoadOptions {
  /** `engram mcp --http` processes on the one PostgreSQL. */
  servers: number
  /** Concurrent MCP clients (each a token of one of `users`). */
  clients: number
  users: number
  /** Turns per client: one session_log write, one session_search, one memory write each. */
  rounds: number
  /** Servers SIGKILLed (and replaced) while the clients run. */
  kills: number
  /** A `pg_ctl restart -m immediate` while the clients run. */
  restartPostgres: boolean
  /** The same calls over stdio (one client, one server), for the latency comparison. */
  stdioRounds: number
}

export interface LoadReport {
  acknowledged: number
  storedOnce: number
  missing: string[]
  duplicated: string[]
  /** Another user's marker seen by a client, or found in another user's sessions. */
  leaks: string[]
  reconnects: number
  killed: number
  restarts: number
  p95: { http: Record<string, number>; stdio: Record<string, number> }
}

const p95 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0)
}

const marker = (user: string) => `marker${user}zz`

/**
 * How long a client waits for one answer: a request whose server died or whose answer was lost fails after
 * it and is retried (what a user's client does, not an assertion on speed; a slow answer is retried too, and
 * session_log's retry stores nothing twice).
 */
const LOST_ANSWER_MS = 60_000

/** One tool call, given up after LOST_ANSWER_MS or when `signal` aborts (its server was killed). */
async function callText(client: Client, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const result = await client.callTool({ name, arguments: args }, undefined, {
    timeout: LOST_ANSWER_MS,
    ...(signal ? { signal } : {}),
  })
  const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n')
  return { text, isError: Boolean(result.isError) }
}

/**
 * N clients over Streamable HTTP across several `engram mcp --http` processes on one PostgreSQL, with
 * servers SIGKILLed and replaced and PostgreSQL restarted immediately while they write: returns what was
 * acknowledged and what the store holds, whether any client saw another user's data, and the p95 latency
 * of the calls against the same calls over stdio. The faults are triggered by the clients' progress (a
 * count of acknowledged turns), never by a timer.
 */
export async function runLoad(pg: PostgresServer, options: LoadOptions): Promise<LoadReport> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-http-load-'))
  const url = `${pg.url}?schema=load_${process.pid}_${Date.now()}`
  const users = Array.from({ length: options.users }, (_, i) => `user${i}`)
  const store = await openStore({ url })
  const tokens = new Map<string, string>()
  for (const user of users) tokens.set(user, (await createAccessToken(store, { userId: user })).secret)
  await store.close()
  const args = ['--db', url, '--session-log', '--rate-limit', '1000000', '--memory-dir', join(dir, 'users')]
  const start = () => startHttpServer(args, { HOME: dir })
  const servers: HttpServer[] = await Promise.all(Array.from({ length: options.servers }, start))
  // Aborted when its server is SIGKILLed: the calls waiting on it fail at once and are retried (the SDK's
  // client learns of a dropped answer stream only from its request timeout).
  const killedServer = new Map<HttpServer, AbortController>()
  const onKill = (server: HttpServer) => {
    const controller = killedServer.get(server) ?? new AbortController()
    killedServer.set(server, controller)
    return controller
  }
  const report: LoadReport = {
    acknowledged: 0,
    storedOnce: 0,
    missing: [],
    duplicated: [],
    leaks: [],
    reconnects: 0,
    killed: 0,
    restarts: 0,
    p95: { http: {}, stdio: {} },
  }
  const latency: Record<string, number[]> = { session_search: [], memory: [], session_log: [] }
  const acked: { user: string; content: string }[] = []
  let turns = 0
  const progress: (() => void)[] = []
  const waitForTurns = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (turns >= n ? resolve() : progress.push(check))
      check()
    })

  async function timed<T>(name: string, work: () => Promise<T>): Promise<T> {
    const began = performance.now()
    const result = await work()
    latency[name]?.push(performance.now() - began)
    return result
  }

  async function runClient(index: number): Promise<void> {
    const user = users[index % users.length] as string
    const token = tokens.get(user) as string
    let client: Client | null = null
    let signal: AbortSignal | undefined
    const session = async () => {
      if (client) return client
      const live = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null)
      const server = (live[index % live.length] ?? servers[0]) as HttpServer
      signal = onKill(server).signal
      client = await connect(server.url, token)
      return client
    }
    // A call that fails (its server killed, PostgreSQL restarting) is retried on a new session, on any
    // live server; session_log is idempotent by message id, so a retry never stores a message twice.
    const withRetry = async <T>(work: (c: Client) => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await work(await session())
          return result
        } catch (error) {
          if (attempt >= 200) throw error
          await (client as Client | null)?.close().catch(() => undefined)
          client = null
          report.reconnects++
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    }
    const others = users.filter((u) => u !== user).map(marker)
    for (let round = 0; round < options.rounds; round++) {
      const content = `client ${index} round ${round} ${marker(user)}`
      const logged = await withRetry(async (c) => {
        const result = await timed('session_log', () =>
          callText(
            c,
            'session_log',
            {
              conversation_id: `conversation-${index}`,
              messages: [{ id: `c${index}-r${round}`, role: 'user', content }],
            },
            signal,
          ),
        )
        if (result.isError && /failed|unavailable|connection|terminat/i.test(result.text))
          throw new Error(result.text)
        return result
      })
      if (!logged.isError) acked.push({ user, content })
      const found = await withRetry((c) =>
        timed('session_search', () => callText(c, 'session_search', { query: 'round' }, signal)),
      )
      for (const other of others) if (found.text.includes(other)) report.leaks.push(`${user} saw ${other}`)
      await withRetry((c) =>
        timed('memory', () =>
          callText(
            c,
            'memory',
            { target: 'memory', operations: [{ action: 'add', content: `client ${index} fact ${round}` }] },
            signal,
          ),
        ),
      )
      turns++
      for (const wake of progress.splice(0)) wake()
    }
    await (client as Client | null)?.close().catch(() => undefined)
  }

  async function faults(): Promise<void> {
    const total = options.clients * options.rounds
    for (let k = 0; k < options.kills; k++) {
      await waitForTurns(Math.floor((total * (k + 1)) / (options.kills + 2)))
      const victim = servers[k % servers.length] as HttpServer
      victim.child.kill('SIGKILL')
      await victim.exited
      onKill(victim).abort(new Error('its server was killed'))
      report.killed++
      servers[k % servers.length] = await start()
    }
    if (options.restartPostgres) {
      await waitForTurns(Math.floor((total * (options.kills + 1)) / (options.kills + 2)))
      pg.restartImmediately()
      report.restarts++
    }
  }

  try {
    await Promise.all([faults(), ...Array.from({ length: options.clients }, (_, i) => runClient(i))])
    report.acknowledged = acked.length
    const check = await openStore({ url })
    try {
      for (const user of users) {
        const counts = new Map<string, number>()
        for (const s of await check.listSessions({ userId: user, limit: 1000 }))
          for (const m of await check.getMessages(s.id)) {
            const text = String(m.content)
            counts.set(text, (counts.get(text) ?? 0) + 1)
            for (const other of users)
              if (other !== user && text.includes(marker(other)))
                report.leaks.push(`${user}'s session holds ${other}'s`)
          }
        for (const write of acked.filter((a) => a.user === user)) {
          const n = counts.get(write.content) ?? 0
          if (n === 1) report.storedOnce++
          else (n === 0 ? report.missing : report.duplicated).push(write.content)
        }
      }
    } finally {
      await check.close()
    }
    for (const [name, values] of Object.entries(latency)) report.p95.http[name] = p95(values)
    report.p95.stdio = await stdioLatency(url, dir, options.stdioRounds)
    return report
  } finally {
    for (const s of servers) s.child.kill('SIGTERM')
    await Promise.all(servers.map((s) => s.exited))
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The same three calls over stdio: one `engram mcp` child, one client, `rounds` turns. */
async function stdioLatency(url: string, dir: string, rounds: number): Promise<Record<string, number>> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ENGRAM_BIN,
      'mcp',
      '--db',
      url,
      '--user',
      'user0',
      '--session-log',
      '--memory-file',
      join(dir, 'stdio', 'MEMORY.md'),
      '--user-file',
      join(dir, 'stdio', 'USER.md'),
    ],
    env: { PATH: process.env.PATH ?? '', HOME: dir },
    stderr: 'ignore',
  })
  const client = new SdkClient({ name: 'stdio-load', version: '1' })
  await client.connect(transport)
  const latency: Record<string, number[]> = { session_search: [], memory: [], session_log: [] }
  const timed = async (name: string, work: () => Promise<unknown>) => {
    const began = performance.now()
    await work()
    latency[name]?.push(performance.now() - began)
  }
  try {
    for (let round = 0; round < rounds; round++) {
      await timed('session_log', () =>
        callText(client, 'session_log', {
          conversation_id: 'stdio',
          messages: [{ id: `s-r${round}`, role: 'user', content: `stdio round ${round}` }],
        }),
      )
      await timed('session_search', () => callText(client, 'session_search', { query: 'round' }))
      await timed('memory', () =>
        callText(client, 'memory', {
          target: 'memory',
          operations: [{ action: 'add', content: `stdio fact ${round}` }],
        }),
      )
    }
  } finally {
    await client.close()
  }
  return Object.fromEntries(Object.entries(latency).map(([name, values]) => [name, p95(values)]))
}
