import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { maskUrl } from '@engram/agent'
import type { SessionExport } from '@engram/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closedPort } from '../../../packages/agent/test/servers/http.ts'
import { comparable } from '../../../packages/core/test/helpers.ts'
import { type PostgresServer, startPostgres } from '../../../packages/core/test/postgres-server.ts'
import { engram, engramJson, type Json, seedConversation, tempDir, withStore } from './helpers.ts'

// One PostgreSQL 15 server for the file; each test uses databases of its own on it.
let server: PostgresServer
const dir = tempDir()
const source = join(dir, 'source.db')

/** A new database of its own on the test server (PostgreSQL's createdb). */
let databases = 0
function newDatabase(): string {
  const name = `engram_${++databases}`
  const { hostname, port } = new URL(server.url)
  execFileSync('createdb', ['-h', hostname, '-p', port, '-U', 'postgres', name])
  return server.url.replace(/\/postgres$/, `/${name}`)
}

/** What the seed adds beyond seedConversation: refs, model calls with latency, parts, a hit episode, an open session. */
async function seedMore(path: string): Promise<void> {
  await withStore(path, async (store) => {
    const s = await store.createSession({ source: 'mcp', title: 'client log' })
    await store.appendMessagesOnce(s.id, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see 图片' },
          { type: 'image_url', image_url: { url: 'data:x' } },
        ],
        ref: 'm-1',
      },
      { role: 'assistant', content: 'ok', ref: 'm-2', name: 'helper', tokenCount: 2 },
    ])
    await store.recordUsage(s.id, {
      model: 'x',
      purpose: 'search',
      inputTokens: 7,
      outputTokens: 1,
      latencyMs: 33,
      cacheReadTokens: 4,
    })
    await store.addEpisode({
      sessionId: s.id,
      summary: '图片 summary',
      importance: 3,
      firstMessageId: null,
      lastMessageId: null,
    })
    await store.search('图片')
    await store.endSession(s.id, 'user_exit')
    await store.createSession({ source: 'cron', userId: 'bob' })
  })
}

beforeAll(async () => {
  server = await startPostgres()
  await seedConversation(source)
  await seedMore(source)
})
afterAll(() => server?.stop())

/** Every session of a store as a sorted list with the ids the copy renumbers made positions. */
async function dumpAll(url: string): Promise<unknown[]> {
  return withStore(url, async (store) => {
    const dumps: unknown[] = []
    for (const session of await store.listSessions({ limit: 1000 }))
      dumps.push(comparable((await store.exportSession(session.id)) as SessionExport))
    return dumps.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
  })
}

/** An export --all file without its export time and the ids each store numbers its own way. */
const exportLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.includes('"exportedAt"'))
    .map((line) => line.replace(/"(id|firstMessageId|lastMessageId)":\d+/g, '"$1":0'))

describe('moving a store between SQLite and PostgreSQL', () => {
  it('migrate --db postgres:// creates the schema, then finds it up to date', async () => {
    const db = newDatabase()
    const created = await engramJson<Json>(['migrate', '--db', db])
    expect(created.schemaVersion.before).toBe(0)
    expect(created.schemaVersion.after).toBeGreaterThan(0)
    const again = await engram(['migrate', '--db', db])
    expect(again.stdout).toBe(
      `The database ${maskUrl(db)} is up to date (schema version ${created.schemaVersion.after}).\n`,
    )
    // doctor words the checks for the engine and the absent config file.
    const doctor = await engram(['doctor', '--db', db], { cwd: tempDir() })
    expect(doctor.stdout).toMatch(/^✓ integrity: every table and search index reads to the end: ok$/m)
    expect(doctor.stdout).not.toContain('PRAGMA')
    expect(doctor.stdout).toMatch(
      /^✓ config: no config file \(engram\.toml or engram\.json here, or --config\): the defaults apply$/m,
    )
  })

  it('SQLite → PostgreSQL → SQLite loses nothing, by migrate --from and by export --all / import; re-runs add nothing', async () => {
    const pg = newDatabase()
    const there = await engramJson<Json>(['migrate', '--from', source, '--db', pg])
    expect(there).toMatchObject({ copied: 4, skipped: 0, messages: 8, warnings: [] })
    const again = await engramJson<Json>(['migrate', '--from', source, '--db', pg])
    expect(again).toMatchObject({ copied: 0, skipped: 4, messages: 0 })
    const original = await dumpAll(source)
    expect(await dumpAll(pg)).toEqual(original)

    // Back by a file: export --all from PostgreSQL, import into a new SQLite file.
    const file = join(dir, 'all.jsonl')
    expect(await engramJson<Json>(['export', '--all', '--db', pg, '-o', file])).toEqual({
      file,
      format: 'jsonl',
      sessions: 4,
      messages: 8,
    })
    const back = join(dir, 'back.db')
    expect(await engramJson<Json>(['import', file, '--db', back])).toMatchObject({
      imported: 4,
      skipped: 0,
      messages: 8,
    })
    expect(await engramJson<Json>(['import', file, '--db', back])).toMatchObject({ imported: 0, skipped: 4 })
    expect(await dumpAll(back)).toEqual(original)
    // And directly: PostgreSQL → SQLite by migrate --from.
    const direct = join(dir, 'direct.db')
    expect(await engramJson<Json>(['migrate', '--from', pg, '--db', direct])).toMatchObject({ copied: 4 })
    expect(await dumpAll(direct)).toEqual(original)

    // The exports of the original and of the copy that went through PostgreSQL are the same file.
    const before = await engram(['export', '--all', '--db', source])
    const after = await engram(['export', '--all', '--db', back])
    expect(exportLines(after.stdout)).toEqual(exportLines(before.stdout))
    // What the copy is for: search, lineage and refs work on PostgreSQL as they did.
    await withStore(pg, async (store) => {
      expect((await store.search('后端')).length).toBeGreaterThan(0)
      const [root] = (await store.listSessions({ source: 'cli' })).filter((s) => s.parentSessionId === null)
      expect((await store.getLineage(await store.resolveTip((root as { id: string }).id))).length).toBe(2)
      const mcp = (await store.listSessions({ source: 'mcp' }))[0] as { id: string }
      expect(
        await store.appendMessagesOnce(mcp.id, [{ role: 'user', content: 'again', ref: 'm-1' }]),
      ).toEqual({ stored: [], existing: ['m-1'] })
    })
  })
})

describe('migrate and copy errors', () => {
  it('names the cause and the fix for a refused login, a missing database and no server, the password masked', async () => {
    const { port } = new URL(server.url)
    const cases: [string, string, RegExp][] = [
      [
        `postgres://nobody:s3cret-pass@127.0.0.1:${port}/postgres`,
        'DATABASE_AUTH',
        /refused the login.*Check the user and password/,
      ],
      [
        `postgres://postgres:s3cret-pass@127.0.0.1:${port}/no_such_db`,
        'DATABASE_MISSING',
        /does not exist.*createdb/,
      ],
      [
        `postgres://postgres:s3cret-pass@127.0.0.1:${await closedPort()}/postgres`,
        'DATABASE_UNREACHABLE',
        /no PostgreSQL server answered.*Check the host and port/,
      ],
    ]
    for (const [url, code, message] of cases) {
      const result = await engram(['migrate', '--db', url, '--json'])
      expect(result.code).toBe(1)
      expect(JSON.parse(result.stdout).error.code).toBe(code)
      expect(result.stderr).toMatch(message)
      expect(result.stdout + result.stderr).not.toContain('s3cret-pass')
    }
    // The same url as the store to copy from: the error says it is the source that failed.
    const [url] = cases[0] as [string, string, RegExp]
    const copy = await engram(['migrate', '--from', url, '--db', join(dir, 'never.db')])
    expect(copy.code).toBe(1)
    expect(copy.stderr).toMatch(
      /The store to copy from \(--from postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres\): .*refused the login/,
    )
    expect(copy.stderr).not.toContain('s3cret-pass')
    expect(existsSync(join(dir, 'never.db'))).toBe(false)
  })

  it('refuses a PostgreSQL schema migrated by a newer Engram, changing nothing', async () => {
    const db = newDatabase()
    await engramJson(['migrate', '--db', db])
    const { hostname, port, pathname } = new URL(db)
    const psql = (sql: string) =>
      execFileSync(
        'psql',
        ['-h', hostname, '-p', port, '-U', 'postgres', '-d', pathname.slice(1), '-Atc', sql],
        { encoding: 'utf8' },
      )
    const count = () => Number(psql('SELECT count(*) FROM "__drizzle_migrations"'))
    const applied = count()
    psql(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('from-the-future', 4102444800000)`)
    const result = await engram(['migrate', '--db', db, '--json'])
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout).error.code).toBe('SCHEMA_TOO_NEW')
    expect(result.stderr).toMatch(/migrated by a newer version of Engram.*Upgrade @engram\/core/)
    expect(count()).toBe(applied + 1)
  })

  it('copies a session holding NUL (a binary tool result) into PostgreSQL whole, and finds the words around it', async () => {
    const sqlite = join(dir, 'nul.db')
    const nul = 'PK\u0003\u0004\u0000\u0000 zebrafish \u0000\uE000 tail'
    const id = await withStore(sqlite, async (store) => {
      const s = await store.createSession({ source: 'cli', id: 'nul-session', systemPrompt: 'be\u0000brief' })
      await store.appendMessages(s.id, [
        { role: 'user', name: 'Ann\u0000', content: 'read the zip' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c\u00001',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"a\\u0000b"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c\u00001', content: nul },
      ])
      return s.id
    })
    const pg = newDatabase()
    expect(await engramJson<Json>(['migrate', '--from', sqlite, '--db', pg])).toMatchObject({ copied: 1 })
    const [from, to] = await Promise.all([
      withStore(sqlite, (store) => store.exportSession(id)),
      withStore(pg, async (store) => {
        expect((await store.search('zebrafish')).map((hit) => hit.sessionId)).toEqual([id])
        return store.exportSession(id)
      }),
    ])
    expect(to?.messages.map((m) => m.content)).toEqual(['read the zip', null, nul])
    expect(to?.messages).toEqual(from?.messages)
    expect(to?.session.systemPrompt).toBe('be\u0000brief')
  })

  it('refuses an export cut short: the whole sessions before the cut are imported, the last one is not', async () => {
    const whole = await engram(['export', '--all', '--db', source])
    const lines = whole.stdout.trimEnd().split('\n')
    const cut = join(dir, 'cut.jsonl')
    writeFileSync(cut, `${lines.slice(0, -2).join('\n')}\n`) // the end record and one message lost
    const target = join(dir, 'cut.db')
    const result = await engram(['import', cut, '--db', target])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /cut\.jsonl is not an Engram export \(it ends before its end record: it was cut short/,
    )
    const sessionsInFile = lines.filter((l) => l.startsWith('{"type":"session"')).length
    expect((await engramJson<Json>(['sessions', '--db', target])).sessions.length).toBe(sessionsInFile - 1)
  })

  it('refuses a PostgreSQL source whose schema= is not a store, creating nothing in the source', async () => {
    const pg = newDatabase()
    await engramJson(['migrate', '--db', `${pg}?schema=app`])
    const { hostname, port, pathname } = new URL(pg)
    const schemas = () =>
      execFileSync(
        'psql',
        ['-h', hostname, '-p', port, '-U', 'postgres', '-d', pathname.slice(1), '-Atc'].concat(
          'SELECT schema_name FROM information_schema.schemata ORDER BY 1',
        ),
      )
        .toString()
        .split('\n')
    const before = schemas()
    const target = join(tempDir(), 'copy.db')
    for (const [schema, why] of [
      ['typo', 'does not exist in this database'],
      ['public', 'holds no Engram store'],
    ]) {
      const copy = await engram(['migrate', '--from', `${pg}?schema=${schema}`, '--db', target])
      expect(copy.code).toBe(1)
      expect(copy.stderr).toContain(`The store to copy from (--from ${maskUrl(`${pg}?schema=${schema}`)})`)
      expect(copy.stderr).toContain(`the schema "${schema}" ${why}, and nothing was created`)
    }
    // No schema and no table appeared in the source; the target was not even created.
    expect(schemas()).toEqual(before)
    expect(
      execFileSync(
        'psql',
        ['-h', hostname, '-p', port, '-U', 'postgres', '-d', pathname.slice(1), '-Atc'].concat(
          "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
        ),
      )
        .toString()
        .trim(),
    ).toBe('0')
    expect(existsSync(target)).toBe(false)
  })

  it('refuses to copy a store onto itself, and a source that does not exist, creating nothing', async () => {
    const same = await engram(['migrate', '--from', source, '--db', `${dir}/../${basename(dir)}/source.db`])
    expect(same.code).toBe(2)
    expect(same.stderr).toContain('--from and --db name the same database')
    const missing = await engram(['migrate', '--from', join(dir, 'nope.db'), '--db', join(dir, 'x.db')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('There is no database at')
    expect(missing.stderr).toContain('Check --from,')
    expect(existsSync(join(dir, 'x.db'))).toBe(false)
  })
})

describe('progress', () => {
  it('counts sessions and messages on a terminal (stderr), and prints nothing there with --json or in a pipe', async () => {
    const onTty = await engram(['migrate', '--from', source, '--db', join(dir, 'tty.db')], {
      ttyStderr: true,
    })
    expect(onTty.code).toBe(0)
    expect(onTty.stderr).toContain('\rCopying: 4 sessions, 8 messages')
    expect(onTty.stderr.endsWith('\r\u001b[K')).toBe(true)
    expect(onTty.stdout).toContain('Copied 4 session(s) and 8 messages')
    const json = await engram(['migrate', '--from', source, '--db', join(dir, 'tty-json.db'), '--json'], {
      ttyStderr: true,
    })
    expect(json.stderr).toBe('')
    const piped = await engram(['export', '--all', '--db', source])
    expect(piped.stderr).toBe('')
  })
})

// Any code point, NUL included (the PostgreSQL dialect escapes it, see the test above).
const text = fc.string({
  unit: fc.oneof(fc.constant('\u0000'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
  maxLength: 24,
})
const time = fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })
const message = fc.oneof(
  fc.record({
    role: fc.constant('user' as const),
    content: fc.oneof(
      text,
      fc.array(fc.record({ type: fc.constant('text'), text }), { minLength: 1, maxLength: 2 }),
    ),
  }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.option(text, { nil: null }),
    tool_calls: fc.array(
      fc.record({
        id: text.filter(Boolean),
        type: fc.constant('function' as const),
        function: fc.record({ name: text, arguments: text }),
      }),
      { maxLength: 2 },
    ),
  }),
  fc.record({
    role: fc.constant('tool' as const),
    content: text,
    tool_call_id: text.filter(Boolean),
    name: fc.option(text, { nil: undefined }),
  }),
)
const generatedSession = fc.record({
  title: fc.option(text, { nil: null }),
  userId: fc.constantFrom(null, 'alice', '用户'),
  continues: fc.boolean(),
  messages: fc.array(
    fc.record({
      message,
      timestamp: time,
      tokenCount: fc.option(fc.nat(5000), { nil: undefined }),
      withRef: fc.boolean(),
    }),
    { maxLength: 6 },
  ),
  calls: fc.array(
    fc.record({
      purpose: fc.constantFrom('main', 'compression', 'search'),
      inputTokens: fc.nat(10_000),
      outputTokens: fc.nat(1000),
      costUsd: fc.double({ min: 0, max: 5, noNaN: true }),
      latencyMs: fc.option(fc.nat(9000), { nil: undefined }),
    }),
    { maxLength: 3 },
  ),
  episode: fc.option(
    fc.record({ summary: text.filter((s) => s.trim() !== ''), importance: fc.integer({ min: 0, max: 10 }) }),
    { nil: null },
  ),
  end: fc.option(text.filter(Boolean), { nil: null }),
})

let runs = 0
/** Writes the generated sessions into a new SQLite file through the Store API; returns the file and the ids. */
async function writeGenerated(sessions: Json[]): Promise<{ path: string; ids: string[] }> {
  const run = ++runs
  const path = join(dir, `generated-${run}.db`)
  const ids: string[] = []
  await withStore(path, async (store) => {
    let previous: { id: string; userId: string | null } | null = null
    for (const [i, g] of sessions.entries()) {
      const parent = g.continues && previous ? previous : null
      const s = await store.createSession({
        id: `run${run}-s${i}`,
        source: 'prop',
        title: g.title,
        userId: parent ? parent.userId : g.userId,
        parentSessionId: parent?.id ?? null,
      })
      const withRefs = g.messages.map((m: Json, j: number) => ({
        ...m.message,
        timestamp: m.timestamp,
        tokenCount: m.tokenCount,
        ref: `ref-${j}`,
      }))
      const refd = withRefs.filter((_: Json, j: number) => g.messages[j].withRef)
      const plain = withRefs
        .filter((_: Json, j: number) => !g.messages[j].withRef)
        .map(({ ref: _, ...m }: Json) => m)
      await store.appendMessagesOnce(s.id, refd)
      await store.appendMessages(s.id, plain)
      for (const call of g.calls) await store.recordUsage(s.id, { model: 'm', ...call })
      if (g.episode)
        await store.addEpisode({ sessionId: s.id, ...g.episode, firstMessageId: null, lastMessageId: null })
      if (g.end) await store.endSession(s.id, g.end)
      previous = { id: s.id, userId: s.userId }
      ids.push(s.id)
    }
  })
  return { path, ids }
}

describe('losslessness across engines (property)', () => {
  const pg = () => (propertyDb ??= newDatabase())
  let propertyDb: string | undefined
  it('any sessions SQLite → PostgreSQL → SQLite come back equal, field by field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(generatedSession, { minLength: 1, maxLength: 3 }), async (sessions) => {
        const { path, ids } = await writeGenerated(sessions)
        await engramJson(['migrate', '--from', path, '--db', pg()])
        const back = join(dir, `generated-${runs}-back.db`)
        await engramJson(['migrate', '--from', pg(), '--db', back])
        const read = (url: string) =>
          withStore(url, async (store) =>
            Promise.all(ids.map(async (id) => comparable((await store.exportSession(id)) as SessionExport))),
          )
        const original = await read(path)
        expect(await read(pg())).toEqual(original)
        expect(await read(back)).toEqual(original)
      }),
      { numRuns: 8 },
    )
  })
})
