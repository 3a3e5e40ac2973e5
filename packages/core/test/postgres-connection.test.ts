import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pgDriver } from '../src/drivers/pg.ts'
import { toEngramError } from '../src/errors.ts'
import { openStore, type Store } from '../src/index.ts'
import { resolveStoreSettings } from '../src/store-options.ts'
import { expectCode } from '../src/testing/harness.ts'
import { type PostgresServer, startPostgres } from './postgres-server.ts'
import { exitWithin, REPO_ROOT, spawnProcess } from './processes/spawn.ts'

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
})
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
    expect(await exitWithin(child, 600_000), child.describe()).toEqual({ code: 0, signal: null })
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

describe('prepared statements', () => {
  const preparedNames = async (driver: ReturnType<typeof pgDriver>) =>
    (
      await driver.execute<{ name: string }>({ sql: 'SELECT name FROM pg_prepared_statements ORDER BY name' })
    ).rows.map((row) => row.name)
  const hot = { sql: 'SELECT ?::int AS x', params: [1], prepare: true }

  it('names a statement marked prepare once per text, on each connection, unless told not to', async () => {
    const driver = pgDriver({ url: server.url, poolSize: 1 })
    const unprepared = pgDriver({ url: server.url, poolSize: 1, preparedStatements: false })
    try {
      for (let i = 0; i < 3; i++) expect((await driver.execute(hot)).rows).toEqual([{ x: 1 }])
      await driver.execute({ sql: 'SELECT ?::int AS y', params: [2] })
      expect(await preparedNames(driver)).toEqual(['engram_1'])
      expect((await unprepared.execute(hot)).rows).toEqual([{ x: 1 }])
      expect(await preparedNames(unprepared)).toEqual([])
    } finally {
      await driver.close()
      await unprepared.close()
    }
  })

  it('names the fix when the server lost a prepared statement, and prepares it again on a new connection', async () => {
    const driver = pgDriver({ url: server.url, poolSize: 1 })
    try {
      await driver.execute(hot)
      // What a pooler without prepared statements does between transactions.
      await driver.execute({ sql: 'DEALLOCATE ALL' })
      const lost = await driver.execute(hot).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(lost).toMatchObject({ code: '26000' })
      const error = toEngramError(lost, 'Searching')
      expect(error.code).toBe('DATABASE_ERROR')
      expect(error.message).toMatch(/preparedStatements: false/)
      expect((await driver.execute(hot)).rows).toEqual([{ x: 1 }])
    } finally {
      await driver.close()
    }
  })

  it('takes prepared_statements= from the url, checked like the option, and never prints the url', () => {
    const url = 'postgres://app:s3cret@db.example/app?sslmode=require&prepared_statements=false&schema=tenant'
    expect(resolveStoreSettings({ url })).toMatchObject({
      url: 'postgres://app:s3cret@db.example/app?sslmode=require',
      schema: 'tenant',
      preparedStatements: false,
    })
    expect(resolveStoreSettings({ url: url.replace('=false', '=true') }).preparedStatements).toBe(true)
    for (const bad of [
      { url: url.replace('=false', '=no') },
      { url, preparedStatements: true },
      { url: `${url}&prepared_statements=true` },
    ]) {
      let error: unknown
      try {
        resolveStoreSettings(bad)
      } catch (e) {
        error = e
      }
      expect(error, JSON.stringify(bad)).toMatchObject({ code: 'INVALID_CONFIG' })
      expect((error as Error).message).toMatch(/prepared_statements=/)
      expect((error as Error).message).not.toMatch(/s3cret/)
    }
  })

  it('a store searches with them or without them alike, and refuses a setting that is not a boolean', async () => {
    const [on, off] = await Promise.all([
      openStore({ url: server.url, schema: 'prepared_on' }),
      openStore({ url: server.url, schema: 'prepared_on', preparedStatements: false }),
    ])
    try {
      const s = await on.createSession({ source: 'test' })
      await on.appendMessages(s.id, [{ role: 'user', content: '数据库迁移 deploy' }])
      for (const query of ['数据库', 'deploy', '数据库 deploy']) {
        expect(await off.search(query), query).toEqual(await on.search(query))
        expect((await on.search(query)).length, query).toBe(1)
      }
      await expectCode(
        openStore({ url: server.url, preparedStatements: 'no' as unknown as boolean }),
        'INVALID_CONFIG',
      )
    } finally {
      await on.close()
      await off.close()
    }
  })
})
