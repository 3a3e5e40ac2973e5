import { createServer, type Server, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pgAppend } from '../src/dialects/postgres/append.ts'
import { postgresDialect } from '../src/dialects/postgres/index.ts'
import type { Statement } from '../src/driver.ts'
import { pgDriver } from '../src/drivers/pg.ts'
import { CLAIM_TOKEN, newWriteToken, pruneTokensIfDue } from '../src/drivers/pg-write-tokens.ts'
import { openStore, type Store } from '../src/index.ts'
import { encodeMessage, MESSAGE_COLUMNS } from '../src/store/message-codec.ts'
import { type PostgresServer, startPostgres } from './postgres-server.ts'

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
})
afterAll(() => server?.stop())

/**
 * A TCP proxy in front of the server that, once, cuts the connection whose client sends a message
 * holding `marker`: either before passing it on (the server never sees it) or after (the server runs it,
 * the reply is lost). Everything else passes both ways untouched.
 */
async function cuttingProxy(marker: string, when: 'before' | 'after') {
  const target = new URL(server.url)
  const sockets = new Set<Socket>()
  let cuts = 0
  const proxy: Server = createServer((client) => {
    const upstream = new Socket()
    upstream.connect(Number(target.port), target.hostname)
    sockets.add(client).add(upstream)
    const cut = () => {
      cuts++
      client.destroy()
      upstream.destroy()
    }
    client.on('data', (chunk: Buffer) => {
      if (cuts === 0 && chunk.includes(marker)) {
        if (when === 'before') return cut()
        upstream.write(chunk)
        // Long enough for the server to run and commit it; its reply never reaches the client.
        upstream.pause()
        return void setTimeout(cut, 300)
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => client.write(chunk))
    for (const socket of [client, upstream]) socket.on('error', () => undefined)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as { port: number }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    cuts: () => cuts,
    close: () => {
      for (const socket of sockets) socket.destroy()
      proxy.close()
    },
  }
}

const rowsOf = async (store: Store, sessionId: string) =>
  (await store.getStoredMessages(sessionId)).map((m) => [m.id, m.content])

describe('a write whose reply is lost', () => {
  for (const when of ['before', 'after'] as const) {
    it(`is stored exactly once when the connection drops ${when} the server gets its COMMIT`, async () => {
      const schema = `lost_commit_${when}`
      const direct = await openStore({ url: server.url, schema })
      const proxy = await cuttingProxy('; COMMIT', when)
      // A pool of one: the lost connection must go back before the outcome is asked on a new one.
      const store = await openStore({ url: proxy.url, schema, poolSize: 1 })
      try {
        const s = await direct.createSession({ source: 'test' })
        // continueSession is a batch: BEGIN, its statements, then the token with the COMMIT.
        const { session, messages } = await store.continueSession(s.id, {
          endReason: 'compression',
          messages: [{ role: 'user', content: 'carried over' }],
        })
        expect(proxy.cuts()).toBe(1)
        expect(await rowsOf(direct, session.id)).toEqual([[messages[0]?.id, 'carried over']])
        expect((await direct.getSession(session.id))?.messageCount).toBe(1)
        expect((await direct.listSessions()).length).toBe(2)
      } finally {
        await store.close()
        await direct.close()
        proxy.close()
      }
    })

    it(`appends exactly once when the connection drops ${when} the server gets the append`, async () => {
      const schema = `lost_append_${when}`
      const direct = await openStore({ url: server.url, schema })
      const proxy = await cuttingProxy('ON CONFLICT DO NOTHING RETURNING id', when)
      const store = await openStore({ url: proxy.url, schema })
      try {
        const s = await direct.createSession({ source: 'test' })
        const [first, second] = await store.appendMessages(s.id, [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
        ])
        expect(proxy.cuts()).toBe(1)
        expect(await rowsOf(direct, s.id)).toEqual([
          [first?.id, 'one'],
          [second?.id, 'two'],
        ])
        expect((await direct.getSession(s.id))?.messageCount).toBe(2)
      } finally {
        await store.close()
        await direct.close()
        proxy.close()
      }
    })
  }
})

describe('write tokens', () => {
  it("make the one-statement append idempotent (in its rows' refs), also when the same statement runs twice at once", async () => {
    const store = await openStore({ url: server.url, schema: 'tokens_twice' })
    const driver = pgDriver({ url: server.url, schema: 'tokens_twice', poolSize: 4 })
    try {
      const s = await store.createSession({ source: 'test' })
      const columns = MESSAGE_COLUMNS.split(',').map((c) => c.trim())
      const rows = ['a', 'b', 'c'].map(
        (content) => encodeMessage({ role: 'user', content }, 1, postgresDialect.messageIndex).values,
      )
      const { writes, lookup } = pgAppend(s.id, columns, rows)
      expect(writes).toHaveLength(1)
      const write = writes[0] as Statement
      const results = await Promise.all([driver.execute(write), driver.execute(write)])
      // One of the two wrote the rows; the other waited for it on the token and wrote nothing.
      const ids = results.flatMap((r) => r.rows.map((row) => row.id))
      expect(ids).toHaveLength(3)
      expect((await driver.execute(write)).rows).toEqual([])
      expect((await driver.execute(lookup)).rows.map((row) => row.id)).toEqual(ids)
      expect((await store.getStoredMessages(s.id)).map((m) => [m.id, m.content])).toEqual([
        [ids[0], 'a'],
        [ids[1], 'b'],
        [ids[2], 'c'],
      ])
      expect((await store.getSession(s.id))?.messageCount).toBe(3)
      // An unknown session fails the foreign key (the store reports SESSION_NOT_FOUND); nothing written.
      const unknown = pgAppend('no-such-session', columns, rows)
      await expect(driver.execute(unknown.writes[0] as Statement)).rejects.toMatchObject({ code: '23503' })
      expect((await driver.execute(unknown.lookup)).rows).toEqual([])
      // Past the row limit: one transaction of several statements, run again as a whole after a lost reply.
      const many = Array.from(
        { length: 2_500 },
        (_, i) => encodeMessage({ role: 'user', content: `m${i}` }, 1, postgresDialect.messageIndex).values,
      )
      const long = pgAppend(s.id, columns, many)
      expect(long.writes).toHaveLength(3)
      const longIds = (await driver.batch(long.writes)).flatMap((r) => r.rows.map((row) => row.id))
      expect(longIds).toHaveLength(2_500)
      expect((await driver.batch(long.writes)).flatMap((r) => r.rows)).toEqual([])
      expect((await driver.execute(long.lookup)).rows.map((row) => row.id)).toEqual(longIds)
      const stored = await store.getStoredMessages(s.id)
      expect(stored.slice(3).map((m) => m.content)).toEqual(many.map((_, i) => `m${i}`))
      expect((await store.getSession(s.id))?.messageCount).toBe(2_503)
    } finally {
      await driver.close()
      await store.close()
    }
  })

  it('answer a lost-COMMIT check once: a claimed token cannot be stored by its transaction later', async () => {
    const store = await openStore({ url: server.url, schema: 'tokens_claim' })
    const driver = pgDriver({ url: server.url, schema: 'tokens_claim' })
    try {
      const token = newWriteToken()
      const claim = { sql: CLAIM_TOKEN, params: [token] }
      expect((await driver.execute(claim)).rows).toEqual([{ token }])
      expect((await driver.execute(claim)).rows).toEqual([])
      await expect(
        driver.execute({ sql: 'INSERT INTO write_tokens (token) VALUES (?)', params: [token] }),
      ).rejects.toMatchObject({ code: '23505' })
    } finally {
      await driver.close()
      await store.close()
    }
  })

  it('sort by time and are pruned after an hour, now and then, in the write itself', async () => {
    const store = await openStore({ url: server.url, schema: 'tokens_prune' })
    const driver = pgDriver({ url: server.url, schema: 'tokens_prune' })
    try {
      const now = Date.now()
      const old = newWriteToken(now - 3_600_001)
      const fresh = newWriteToken(now - 3_599_000)
      expect(old < fresh).toBe(true)
      for (const token of [old, fresh])
        await driver.execute({ sql: 'INSERT INTO write_tokens (token) VALUES (?)', params: [token] })
      expect(pruneTokensIfDue(now, () => 0.5)).toBe('')
      await driver.execute({ sql: pruneTokensIfDue(now, () => 0) })
      const { rows } = await driver.execute({
        sql: 'SELECT token FROM write_tokens WHERE token IN (?, ?)',
        params: [old, fresh],
      })
      expect(rows).toEqual([{ token: fresh }])
    } finally {
      await driver.close()
      await store.close()
    }
  })
})

describe('opening a store', () => {
  it('starts over when the connection is lost under way (a server restarting), and then opens', async () => {
    const schema = 'lost_at_open'
    await (await openStore({ url: server.url, schema })).close()
    // the schema check's query is cut before the server sees it: the first attempt fails mid-open
    const proxy = await cuttingProxy('information_schema.tables', 'before')
    try {
      const store = await openStore({ url: proxy.url, schema })
      expect(proxy.cuts()).toBe(1)
      const session = await store.createSession({ source: 'test' })
      expect((await store.getSession(session.id))?.id).toBe(session.id)
      await store.close()
    } finally {
      proxy.close()
    }
  })
})

describe("the pg driver's pool of connections", () => {
  const pid = async (driver: ReturnType<typeof pgDriver>) =>
    (await driver.execute<{ pid: number }>({ sql: 'SELECT pg_backend_pid() AS pid' })).rows[0]?.pid

  it('opens at most poolSize connections and serves every caller that waited for one, in turn', async () => {
    const driver = pgDriver({ url: server.url, poolSize: 2 })
    try {
      const rows = await Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          driver.execute<{ pid: number; i: number }>({
            sql: 'SELECT pg_backend_pid() AS pid, ?::int AS i FROM pg_sleep(0.05)',
            params: [i],
          }),
        ),
      )
      expect(rows.map((r) => r.rows[0]?.i)).toEqual([0, 1, 2, 3, 4, 5, 6])
      expect(new Set(rows.map((r) => r.rows[0]?.pid)).size).toBe(2)
    } finally {
      await driver.close()
    }
  })

  it('keeps a connection after a server error and replaces one the server ended', async () => {
    const driver = pgDriver({ url: server.url, poolSize: 1 })
    const other = pgDriver({ url: server.url, poolSize: 1 })
    try {
      const first = await pid(driver)
      await expect(driver.execute({ sql: 'SELECT 1 / 0' })).rejects.toMatchObject({ code: '22012' })
      expect(await pid(driver)).toBe(first)
      // Ended while idle: the pool drops it when the server says so, and opens a new one on demand.
      await other.execute({ sql: 'SELECT pg_terminate_backend(?)', params: [first ?? null] })
      let next: number | undefined
      for (let attempt = 0; attempt < 50 && next === undefined; attempt++) {
        next = await pid(driver).catch(() => undefined)
      }
      expect(next).toBeDefined()
      expect(next).not.toBe(first)
    } finally {
      await driver.close()
      await other.close()
    }
  })

  it('refuses work once closed', async () => {
    const driver = pgDriver({ url: server.url, poolSize: 1 })
    await driver.close()
    await expect(driver.execute({ sql: 'SELECT 1' })).rejects.toThrow(/pool/)
  })
})
