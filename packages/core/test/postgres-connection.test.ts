import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pgDriver } from '../src/drivers/pg.ts'
import { openStore, type Store } from '../src/index.ts'
import { expectCode } from '../src/testing/harness.ts'
import { type PostgresServer, startPostgres } from './postgres-server.ts'
import { exitWithin, REPO_ROOT, spawnProcess } from './processes/spawn.ts'

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

/** The server's url with another database, user or query. */
const urlWith = ({ database = 'postgres', user = 'postgres', query = '' }) => {
  const url = new URL(server.url)
  url.pathname = `/${database}`
  url.username = user
  url.search = query
  return url.toString()
}

async function createDatabase(name: string) {
  const driver = pgDriver({ url: server.url })
  await driver.execute({ sql: `CREATE DATABASE ${name}` })
  await driver.close()
}

describe('opening a PostgreSQL store', () => {
  it('picks the pg driver from a postgres:// url and keeps apps apart by schema', async () => {
    const a = await openStore({ url: server.url, schema: 'app_a' })
    const b = await openStore({ url: `${server.url}?sslmode=disable`, schema: 'app_b', poolSize: 2 })
    try {
      expect(a.driverName).toBe('pg')
      const s = await a.createSession({ source: 'cli', id: 'same-id' })
      await b.createSession({ source: 'cli', id: 'same-id' })
      await a.appendMessage(s.id, { role: 'user', content: 'only in app a' })
      expect((await a.listSessions()).map((x) => x.messageCount)).toEqual([1])
      expect((await b.listSessions()).map((x) => x.messageCount)).toEqual([0])
      expect(await b.search('only')).toEqual([])
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("takes the schema from the url's schema= parameter, so a url alone (the CLI's --db, --from) names it", async () => {
    const byOption = await openStore({ url: server.url, schema: 'app_url' })
    const byUrl = await openStore({ url: urlWith({ query: '?schema=app_url&sslmode=disable' }) })
    try {
      const s = await byOption.createSession({ source: 'cli' })
      expect((await byUrl.getSession(s.id))?.id).toBe(s.id)
      // the default schema holds no such session: the parameter chose the schema, it was not dropped
      const inPublic = await openStore({ url: server.url })
      expect(await inPublic.getSession(s.id)).toBeNull()
      await inPublic.close()
    } finally {
      await byOption.close()
      await byUrl.close()
    }
    const bad = await expectCode(
      openStore({ url: urlWith({ query: '?schema=bad%20name' }) }),
      'INVALID_CONFIG',
    )
    expect(bad.message).toMatch(/schema must be a schema name/)
    expect(bad.message).not.toContain(server.url)
    await expectCode(openStore({ url: urlWith({ query: '?schema=%E0%A4%A' }) }), 'INVALID_CONFIG')
    const both = await expectCode(
      openStore({ url: urlWith({ query: '?schema=one' }), schema: 'two' }),
      'INVALID_CONFIG',
    )
    expect(both.message).toMatch(/Name it once/)
    expect(both.message).not.toContain(server.url)
    const twice = await expectCode(
      openStore({ url: urlWith({ query: '?schema=a&schema=b' }) }),
      'INVALID_CONFIG',
    )
    expect(twice.message).toMatch(/\(a, b\).*Name it once/)
  })

  it('opens one new schema from many connections at once: one migrates, the others find it done', async () => {
    const stores = await Promise.all(
      Array.from({ length: 8 }, () => openStore({ url: server.url, schema: 'racing', poolSize: 1 })),
    )
    try {
      const s = await (stores[0] as Store).createSession({ source: 'cli' })
      expect((await (stores[7] as Store).getSession(s.id))?.id).toBe(s.id)
    } finally {
      await Promise.all(stores.map((store) => store.close()))
    }
  })

  it('names the cause and the fix: unknown role, missing database, no server, bad sslmode', async () => {
    const auth = await expectCode(openStore({ url: urlWith({ user: 'nobody' }) }), 'DATABASE_AUTH')
    expect(auth.message).toMatch(/user and password/)
    const missing = await expectCode(openStore({ url: urlWith({ database: 'nowhere' }) }), 'DATABASE_MISSING')
    expect(missing.message).toMatch(/createdb/)
    const closed = new URL(server.url)
    closed.port = '1'
    const unreachable = await expectCode(openStore({ url: closed.toString() }), 'DATABASE_UNREACHABLE')
    expect(unreachable.message).toMatch(/host and port/)
    const ssl = await expectCode(openStore({ url: urlWith({ query: '?sslmode=require' }) }), 'DATABASE_ERROR')
    expect(ssl.message).toMatch(/SSL/)
    await expectCode(openStore({ url: server.url, schema: 'bad name' }), 'INVALID_CONFIG')
    await expectCode(openStore({ url: server.url, driver: 'better-sqlite3' }), 'INVALID_ARGUMENT')
  })

  it('refuses a schema migrated by newer code, and a schema of another application', async () => {
    const store = await openStore({ url: server.url, schema: 'newer' })
    await store.close()
    const raw = pgDriver({ url: server.url, schema: 'newer' })
    await raw.execute({
      sql: 'INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)',
      params: ['f'.repeat(64), Date.now() * 2],
    })
    await raw.execute({ sql: 'CREATE SCHEMA theirs' })
    await raw.execute({ sql: 'CREATE TABLE theirs.invoices (id int)' })
    await raw.close()
    await expectCode(openStore({ url: server.url, schema: 'newer' }), 'SCHEMA_TOO_NEW')
    const foreign = await expectCode(openStore({ url: server.url, schema: 'theirs' }), 'FOREIGN_DATABASE')
    expect(foreign.message).toContain('invoices')
  })

  it('cancels a statement past statementTimeoutMs with a clear error', async () => {
    await (await openStore({ url: server.url, schema: 'timed' })).close()
    const driver = pgDriver({ url: server.url, statementTimeoutMs: 50 })
    const store = await openStore({ url: server.url, schema: 'timed', statementTimeoutMs: 50 })
    try {
      const error = await driver.execute({ sql: 'SELECT pg_sleep(2)' }).catch((e: unknown) => e)
      expect((error as { code?: string }).code).toBe('57014')
      expect(await store.listSessions()).toEqual([])
    } finally {
      await driver.close()
      await store.close()
    }
  })

  it('drizzle-kit migrate applies the shipped migrations and openStore then applies none', async () => {
    await createDatabase('kit')
    const child = spawnProcess(
      join(REPO_ROOT, 'node_modules/.bin/drizzle-kit'),
      ['migrate', '--config', 'drizzle.pg.config.ts'],
      { ENGRAM_DATABASE_URL: urlWith({ database: 'kit' }) },
    )
    expect(await exitWithin(child, 90_000), child.describe()).toEqual({ code: 0, signal: null })
    const raw = pgDriver({ url: urlWith({ database: 'kit' }) })
    const applied = async () => (await raw.execute({ sql: 'SELECT hash FROM __drizzle_migrations' })).rows
    const before = await applied()
    expect(before.length).toBeGreaterThan(0)
    const store = await openStore({ url: urlWith({ database: 'kit' }) })
    try {
      expect(await applied()).toEqual(before)
      const s = await store.createSession({ source: 'cli' })
      await store.appendMessage(s.id, { role: 'user', content: '部署完成' })
      expect((await store.search('部署')).length).toBe(1)
    } finally {
      await store.close()
      await raw.close()
    }
  })
})

describe('search on PostgreSQL', () => {
  it('turns any text into a valid tsquery: never an error, whatever the operators, quotes and scripts', async () => {
    const store = await openStore({ url: server.url, schema: 'any_text' })
    try {
      const s = await store.createSession({ source: 'cli' })
      await store.appendMessage(s.id, {
        role: 'user',
        content: "it's a 'quoted' \\back\\slash: & | ! <-> 部署 deploy*",
      })
      await fc.assert(
        fc.asyncProperty(
          fc.string({
            unit: fc.constantFrom(...'ab 部署\'"\\&|!:*()<->-_. AND OR NOT'.split('')),
            maxLength: 40,
          }),
          async (query) => {
            expect(Array.isArray(await store.search(query))).toBe(true)
          },
        ),
        { numRuns: 150 },
      )
      for (const query of ["it's", 'back\\slash', '部署', 'deplo*', '"quoted"'])
        expect((await store.search(query)).length, query).toBe(1)
    } finally {
      await store.close()
    }
  })
})
