import { createHash } from 'node:crypto'
import { cpSync, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { count } from 'drizzle-orm'
import fc from 'fast-check'
import { beforeEach, describe, expect, it } from 'vitest'
import { ENGRAM_APPLICATION_ID } from '../database-identity.ts'
import type { QueryResult, Statement, StorageDriver } from '../driver.ts'
import { DEFAULT_MIGRATIONS_FOLDER, migrate } from '../migrator.ts'
import { openStoreWithDriver } from '../open-store.ts'
import { messagesUnindexed } from '../schema/index.ts'
import { messageSearchText } from '../search/index-text.ts'
import { INDEX_BATCH } from '../store/context.ts'
import type { Store } from '../store/store.ts'
import type { MessageInput, ToolCall } from '../types.ts'
import { expectCode, type Harness, holdWriteLock } from './harness.ts'

const MIGRATION_COUNT: number = JSON.parse(
  readFileSync(join(DEFAULT_MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
).entries.length

const toolCall = (id: string, name: string, args: object): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
})

/**
 * `inner` with one interruption: after the first statement for which `when` holds (given its result), it
 * runs `write` (another connection's writes, say) before the caller gets that result. The rest of the
 * driver is `inner`'s own.
 */
function writingOnce(
  inner: StorageDriver,
  when: (statement: Statement, result: QueryResult) => boolean,
  write: () => Promise<void>,
): StorageDriver {
  let done = false
  return new Proxy(inner, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (key !== 'execute') return typeof value === 'function' ? value.bind(target) : value
      return async (statement: Statement) => {
        const result = await target.execute(statement)
        if (!done && when(statement, result)) {
          done = true
          await write()
        }
        return result
      }
    },
  })
}

/** The store contract: sessions, messages, usage, migrations, maintenance, foreign files. */
export function storeSuite(h: Harness): void {
  const { dir, name: driver, open } = h
  const raw = (path: string) => new Database(path)
  const file = !h.capabilities.sqliteFile
  /** A copy of the migrations that ends before the one whose tag starts with `tag` (`0005_`). */
  const migrationsBefore = (tag: string) => {
    const folder = join(dir, `migrations-before-${tag}${driver}`)
    cpSync(DEFAULT_MIGRATIONS_FOLDER, folder, { recursive: true })
    const journalPath = join(folder, 'meta', '_journal.json')
    const journal = JSON.parse(readFileSync(journalPath, 'utf8'))
    const at = journal.entries.findIndex((e: { tag: string }) => e.tag.startsWith(tag))
    expect(at).toBeGreaterThan(0)
    journal.entries = journal.entries.slice(0, at)
    writeFileSync(journalPath, JSON.stringify(journal))
    return folder
  }
  /** A message row as the code before migration 0015 wrote it: its index text in search_text where it differs. */
  const rowBefore0015 = (
    sessionId: string,
    [role, content, calls]: [string, string | null, ToolCall[] | null],
    timestamp: number,
  ) => ({
    sql: 'INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, timestamp, search_text) VALUES (?, ?, ?, ?, ?, ?, ?)',
    params: [
      sessionId,
      role,
      content,
      calls === null ? null : JSON.stringify(calls),
      role === 'tool' ? 'c1' : null,
      timestamp,
      messageSearchText(content, calls ?? []),
    ],
  })

  describe.skipIf(file)('migrations (sqliteFile)', () => {
    it('migrates a fresh database and creates the FTS triggers', async () => {
      const path = h.path()
      const store = await open(path)
      await store.close()
      const db = raw(path)
      const triggers = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        .pluck()
        .all()
      const applied = db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()
      const mode = db.prepare('PRAGMA journal_mode').pluck().get()
      db.close()
      expect(triggers).toEqual([
        'episodes_fts_delete',
        'episodes_fts_insert',
        'episodes_fts_update',
        'graph_items_fts_delete',
        'graph_items_fts_insert',
        'graph_items_fts_update',
        'messages_count_delete',
        'messages_count_insert',
        'messages_count_update',
        'messages_fts_delete',
        'messages_fts_insert',
        'messages_fts_update',
      ])
      expect(applied).toBe(MIGRATION_COUNT)
      expect(mode).toBe('wal')
    })

    it('is a no-op the second time', async () => {
      const path = h.path()
      await (await open(path)).close()
      const schemaVersion = () => {
        const db = raw(path)
        const version = db.pragma('schema_version', { simple: true })
        db.close()
        return version
      }
      const before = schemaVersion()
      const store = await open(path)
      await store.close()
      // Any DDL would have bumped the schema cookie.
      expect(schemaVersion()).toBe(before)
      const db = raw(path)
      expect(db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(MIGRATION_COUNT)
      db.close()
    })

    it('upgrades a database made by an older migration set with its data intact', async () => {
      const oldFolder = migrationsBefore('0001_')

      // The database as the first release left it: its schema, and rows written by its code.
      const path = h.path()
      const oldDriver = await h.driver(path, { readOnly: false })
      await migrate(oldDriver, oldFolder)
      await oldDriver.batch([
        { sql: "INSERT INTO sessions (id, source, model, started_at) VALUES ('old-1', 'cli', 'm', 1)" },
        {
          sql: `INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES
            ('old-1', 'user', 'the kubernetes rollout failed twice', NULL, 2),
            ('old-1', 'assistant', NULL, '[{"id":"c1","type":"function","function":{"name":"kubectl","arguments":"{}"}}]', 3)`,
        },
      ])
      await oldDriver.close()
      const s = { id: 'old-1' }

      const store = await open(path)
      const history = await store.getMessages(s.id)
      expect(history.map((m) => m.content)).toEqual(['the kubernetes rollout failed twice', null])
      expect(history[1]?.tool_calls?.[0]?.function.name).toBe('kubectl')
      // counters from 0002 and 0003; no model settings (0013) were recorded for it
      expect(await store.getSession(s.id)).toMatchObject({
        messageCount: 2,
        toolCallCount: 1,
        modelConfig: null,
      })
      expect((await store.search('kubernetes')).map((h) => h.sessionId)).toEqual([s.id])
      // Old rows have no search text yet; rebuilding the index adds their tool calls.
      expect(await store.search('kubectl')).toEqual([])
      await store.rebuildSearchIndex()
      expect((await store.search('kubectl')).map((h) => h.role)).toEqual(['assistant'])
      expect((await store.checkIntegrity()).ok).toBe(true)
      await store.close()
    })

    it('moves a database made before 0015 to the contentless message index, keeping what it finds', async () => {
      const path = h.path()
      const oldDriver = await h.driver(path, { readOnly: false })
      await migrate(oldDriver, migrationsBefore('0015_'))
      // the rows as the code before wrote them: the index text in search_text where it differs
      const rows: [string, string | null, ToolCall[] | null][] = [
        ['user', '我们决定把发布窗口改到周四下午', null],
        ['assistant', null, [toolCall('c1', 'kubectl', { args: 'rollout status' })]],
        ['user', 'plain english words', null],
        ['tool', 'left half\0right half', null],
      ]
      await oldDriver.batch([
        { sql: "INSERT INTO sessions (id, source, started_at) VALUES ('old-15', 'cli', 1)" },
        ...rows.map((row, i) => rowBefore0015('old-15', row, i + 2)),
      ])
      await oldDriver.close()

      const store = await open(path)
      const snippets = async (query: string) => (await store.search(query)).map((hit) => hit.snippet)
      expect(await snippets('发布窗口')).toEqual([expect.stringContaining('«发布窗口»')])
      expect(await snippets('kubectl')).toEqual([expect.stringContaining('«kubectl»')])
      expect(await snippets('english')).toEqual([expect.stringContaining('«english»')])
      expect(await snippets('right')).toEqual([expect.stringContaining('«right»')])
      expect((await store.checkIntegrity()).ok).toBe(true)
      await store.close()
      const db = raw(path)
      // only the row whose text SQLite cannot slice (a NUL) keeps its copy
      expect(db.prepare("SELECT role FROM messages WHERE search_text <> ''").pluck().all()).toEqual(['tool'])
      db.close()
    })

    it('marks the retrieval traffic stored before migration 0009, leaving everything else', async () => {
      const oldFolder = migrationsBefore('0009_')
      const path = h.path()
      const oldDriver = await h.driver(path, { readOnly: false })
      await migrate(oldDriver, oldFolder)
      const calls = (name: string, id: string) =>
        JSON.stringify([toolCall(id, name, { query: 'release window' })]).replaceAll("'", "''")
      const rows: [string, string | null, string | null, string | null][] = [
        ['user', 'We moved the release window to Thursday.', null, null],
        ['assistant', 'Noted.', null, null],
        ['user', 'When is the release window?', null, null],
        ['assistant', null, calls('session_search', 'c1'), null],
        ['tool', 'No past session matches "release window".', null, 'c1'],
        ['assistant', 'I found nothing about "release window" in past conversations.', null, null],
        ['assistant', null, calls('memory', 'c2'), null],
        ['tool', 'Saved.', null, 'c2'],
        ['assistant', null, calls('read_file', 'c3'), null],
        ['tool', 'release window notes', null, 'c3'],
        ['assistant', 'The release window notes say Thursday.', null, null],
        [
          'assistant',
          null,
          '[{"id":"c4","function":{"name":"session_search"}},{"id":"c5","function":{"name":"deploy"}}]',
          null,
        ],
      ]
      await oldDriver.batch([
        { sql: "INSERT INTO sessions (id, source, started_at) VALUES ('old-r', 'cli', 1)" },
        ...rows.map(([role, content, toolCalls, callId], i) => ({
          sql: 'INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, timestamp) VALUES (?, ?, ?, ?, ?, ?)',
          params: ['old-r', role, content, toolCalls, callId, i + 1],
        })),
      ])
      await oldDriver.close()
      const store = await open(path)
      const stored = await store.getStoredMessages('old-r')
      expect(stored.map((m) => m.retrieval === true)).toEqual([
        ...[false, false, false],
        ...[true, true, true],
        ...[true, true],
        ...[false, false, false],
        false,
      ])
      const shown = (await store.search('release window', { limit: 50 })).map((hit) => hit.snippet)
      expect(shown.join('\n')).not.toMatch(/No past session|found nothing/)
      expect(shown.findIndex((s) => s.startsWith('We moved'))).toBeLessThan(
        shown.findIndex((s) => s.startsWith('When is')),
      )
      await store.close()
    })

    it('adds foreign keys to a populated database, keeping every row, link and index entry', async () => {
      const oldFolder = migrationsBefore('0005_')
      const path = h.path()
      const before = await h.open(path, { migrationsFolder: oldFolder })
      // The session rows as that schema holds them (this code's createSession writes later columns too).
      const root = { id: 'fk-root' }
      const child = { id: 'fk-child' }
      const oldDb = raw(path)
      oldDb.exec(`INSERT INTO sessions (id, source, user_id, started_at) VALUES ('fk-root', 'cli', 'u', 1);
        INSERT INTO sessions (id, source, user_id, parent_session_id, started_at) VALUES ('fk-child', 'cli', 'u', 'fk-root', 2)`)
      // messages with an index text of their own, as that code wrote them (this code hands it to the index)
      for (const row of [
        ['user', '部署 the gateway', null],
        ['assistant', null, [toolCall('c1', 'deploy', { to: 'prod' })]],
      ] as [string, string | null, ToolCall[] | null][]) {
        const { sql, params } = rowBefore0015(root.id, row, 3)
        oldDb.prepare(sql).run(...params)
      }
      oldDb.close()
      await before.appendMessage(child.id, { role: 'user', content: 'gateway again' })
      await before.addEpisode({ sessionId: root.id, summary: 'gateway deployment' })
      await before.recordUsage(root.id, { model: 'm', purpose: 'main', inputTokens: 3, outputTokens: 4 })
      await before.close()
      // A message of a session that no longer exists, as another tool could have left it.
      const other = raw(path)
      other.pragma('foreign_keys = OFF')
      other.exec(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('gone', 'user', 'orphan', 1)",
      )
      other.close()

      const store = await open(path)
      expect(await store.getLineage(child.id)).toMatchObject([{ id: root.id }, { id: child.id }])
      expect(await store.getSession(root.id)).toMatchObject({
        messageCount: 2,
        toolCallCount: 1,
        inputTokens: 3,
      })
      expect((await store.search('gateway')).length).toBe(3)
      expect((await store.search('部署')).map((hit) => hit.sessionId)).toEqual([root.id])
      expect(await store.search('orphan')).toEqual([])
      expect(await store.checkIntegrity()).toMatchObject({ ok: true })
      await store.close()

      const db = raw(path)
      const keys = (table: string) =>
        (db.pragma(`foreign_key_list(${table})`) as { table: string; from: string; on_delete: string }[]).map(
          (k) => [k.from, k.table, k.on_delete],
        )
      expect(keys('messages')).toEqual([['session_id', 'sessions', 'CASCADE']])
      expect(keys('episodes')).toEqual([['session_id', 'sessions', 'CASCADE']])
      expect(keys('model_calls')).toEqual([['session_id', 'sessions', 'CASCADE']])
      expect(keys('sessions')).toEqual([['parent_session_id', 'sessions', 'SET NULL']])
      // The schema itself, not the store's code, takes a session's rows with it and detaches its children.
      db.pragma('foreign_keys = ON')
      db.prepare('DELETE FROM sessions WHERE id = ?').run(root.id)
      const count = (sql: string) => db.prepare(sql).pluck().get()
      expect(count('SELECT count(*) FROM messages')).toBe(1)
      expect(count('SELECT count(*) FROM episodes')).toBe(0)
      expect(count('SELECT count(*) FROM model_calls')).toBe(0)
      expect(count('SELECT parent_session_id FROM sessions')).toBeNull()
      db.close()
    })

    it('refuses a database whose schema is newer than the code', async () => {
      const path = h.path()
      await (await open(path)).close()
      const db = raw(path)
      db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(
        'f'.repeat(64),
        Date.now() * 2,
      )
      db.close()
      const error = await expectCode(open(path), 'SCHEMA_TOO_NEW')
      expect(error.message).toMatch(/newer version/)
    })
  })

  describe('sessions', () => {
    let store: Store
    beforeEach(async () => {
      store = await open()
      return () => store.close()
    })

    it('creates, reads and lists sessions with filters', async () => {
      const a = await store.createSession({ source: 'cli', model: 'gpt-x', userId: 'u1', title: 'first' })
      const b = await store.createSession({ source: 'telegram', model: 'gpt-x', userId: 'u2' })
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/)
      expect(await store.getSession(a.id)).toMatchObject({
        source: 'cli',
        model: 'gpt-x',
        userId: 'u1',
        title: 'first',
        endedAt: null,
        messageCount: 0,
      })
      expect((await store.listSessions({ source: 'telegram' })).map((s) => s.id)).toEqual([b.id])
      expect((await store.listSessions({ userId: 'u1' })).map((s) => s.id)).toEqual([a.id])
      expect((await store.listSessions({ limit: 1 })).length).toBe(1)
      expect(await store.getSession('missing')).toBeNull()
    })

    it('lists the sessions whose id starts with a prefix: exactly, case-sensitive, wildcards literal', async () => {
      for (const id of ['abc-1', 'abc-2', 'abd', 'a*c', 'a?c', 'a[b]c', 'ABC-3', '数据-1']) {
        await store.createSession({ source: 'cli', id, userId: id === 'abc-2' ? 'u2' : 'u1' })
      }
      const ids = async (idPrefix: string, userId?: string) =>
        (await store.listSessions({ idPrefix, ...(userId ? { userId } : {}) })).map((s) => s.id).sort()
      expect(await ids('abc')).toEqual(['abc-1', 'abc-2'])
      expect(await ids('abc', 'u1')).toEqual(['abc-1'])
      expect(await ids('a*')).toEqual(['a*c'])
      expect(await ids('a?')).toEqual(['a?c'])
      expect(await ids('a[b')).toEqual(['a[b]c'])
      expect(await ids('数据')).toEqual(['数据-1'])
      expect(await ids('abd')).toEqual(['abd'])
      expect(await ids('zz')).toEqual([])
      await expectCode(store.listSessions({ idPrefix: '' }), 'INVALID_ARGUMENT')
    })

    it('keeps a caller-chosen id and refuses it twice', async () => {
      await store.createSession({ source: 'cli', id: 'fixed-id' })
      await expectCode(store.createSession({ source: 'cli', id: 'fixed-id' }), 'SESSION_EXISTS')
    })

    it('rejects a session without a source or with an unknown parent', async () => {
      await expectCode(store.createSession({ source: '' }), 'INVALID_ARGUMENT')
      await expectCode(store.createSession({ source: 'cli', userId: 5 as never }), 'INVALID_ARGUMENT')
      await expectCode(store.createSession({ source: 'cli', parentSessionId: 'nope' }), 'SESSION_NOT_FOUND')
    })

    it('ends a session once: the first reason wins', async () => {
      const s = await store.createSession({ source: 'cli' })
      await store.endSession(s.id, 'compression')
      await store.endSession(s.id, 'user_exit')
      expect(await store.getSession(s.id)).toMatchObject({
        endReason: 'compression',
        endedAt: expect.any(Number),
      })
      await expectCode(store.endSession('missing', 'x'), 'SESSION_NOT_FOUND')
    })

    it('reopens an ended session: live again, not pruned, and the next end is recorded', async () => {
      const s = await store.createSession({ source: 'reopen' })
      await store.endSession(s.id, 'user_exit')
      await store.reopenSession(s.id)
      expect(await store.getSession(s.id)).toMatchObject({ endedAt: null, endReason: null })
      expect(await store.pruneSessions({ olderThanDays: 0, source: 'reopen' })).toBe(0)
      await store.endSession(s.id, 'later_exit')
      expect(await store.getSession(s.id)).toMatchObject({ endReason: 'later_exit' })
      await store.reopenSession(s.id)
      await store.reopenSession(s.id)
      expect((await store.getSession(s.id))?.endedAt).toBeNull()
      await expectCode(store.reopenSession('missing'), 'SESSION_NOT_FOUND')
    })

    it('stores the system prompt verbatim', async () => {
      const prompt = '  You are Hermes.\r\n\u00a0Memory: [62% — 1,364/2,200 chars]\n\n§ notes\t \n'
      const s = await store.createSession({ source: 'cli', systemPrompt: 'old' })
      await store.setSystemPrompt(s.id, prompt)
      expect((await store.getSession(s.id))?.systemPrompt).toBe(prompt)
      await expectCode(store.setSystemPrompt('missing', prompt), 'SESSION_NOT_FOUND')
    })

    it('records the model settings a session runs with: round trip, kept by a continuation, null when none', async () => {
      const config = {
        contextWindow: 6000,
        maxTokens: 512,
        model: 'qwen-local',
        provider: 'openai',
        // keys of another tool (a Hermes model_config) are kept as they are
        base_url: 'http://127.0.0.1:8080/v1',
        reasoning: { effort: 'low', steps: [1, 2.5, null, true] },
        note: '窗口 6k\0',
      }
      const s = await store.createSession({ source: 'cli', modelConfig: config })
      expect(s.modelConfig).toEqual(config)
      expect((await store.getSession(s.id))?.modelConfig).toEqual(config)
      expect((await store.listSessions({ source: 'cli' })).find((l) => l.id === s.id)?.modelConfig).toEqual(
        config,
      )
      const { session: child } = await store.continueSession(s.id, { endReason: 'compression', messages: [] })
      expect(child.modelConfig).toEqual(config)
      expect((await store.getLineage(child.id)).map((l) => l.modelConfig)).toEqual([config, config])

      const plain = await store.createSession({ source: 'cli' })
      expect(plain.modelConfig).toBeNull()
      expect((await store.getSession(plain.id))?.modelConfig).toBeNull()
      await store.setModelConfig(plain.id, { contextWindow: 32_000 })
      expect((await store.getSession(plain.id))?.modelConfig).toEqual({ contextWindow: 32_000 })
      await store.setModelConfig(plain.id, null)
      expect((await store.getSession(plain.id))?.modelConfig).toBeNull()
      await expectCode(store.setModelConfig('missing', { contextWindow: 1 }), 'SESSION_NOT_FOUND')
    })

    it('refuses model settings that are not JSON or have a wrong known field, naming the field', async () => {
      const bad: [unknown, RegExp][] = [
        [{ contextWindow: 0 }, /contextWindow must be at least 1/],
        [{ contextWindow: 6000.5 }, /contextWindow must be a whole number/],
        [{ maxTokens: '512' }, /maxTokens/],
        [{ model: 7 }, /model/],
        [{ extra: Number.NaN }, /JSON values only/],
        [{ extra: undefined }, /JSON values only/],
        [{ extra: 'x'.repeat(70_000) }, /at most 65536 characters/],
        ['6000', /modelConfig/],
      ]
      for (const [modelConfig, message] of bad) {
        const error = await expectCode(
          store.createSession({ source: 'cli', modelConfig: modelConfig as never }),
          'INVALID_ARGUMENT',
        )
        expect(error.message).toMatch(message)
      }
      const s = await store.createSession({ source: 'cli' })
      await expectCode(store.setModelConfig(s.id, { maxTokens: -1 }), 'INVALID_ARGUMENT')
      expect((await store.getSession(s.id))?.modelConfig).toBeNull()
    })

    it('carries the model settings through exportSession and importSession', async () => {
      const config = { contextWindow: 6000, maxTokens: 256, model: 'm', hermes_key: [1, 'two'] }
      const s = await store.createSession({ source: 'cli', modelConfig: config })
      await store.appendMessage(s.id, { role: 'user', content: 'hello' })
      const exported = await store.exportSession(s.id)
      expect(exported?.session.modelConfig).toEqual(config)
      const other = await open()
      try {
        const { session } = exported ?? { session: s }
        const none = await store.createSession({ source: 'cli' })
        for (const [id, modelConfig] of [
          [session.id, session.modelConfig],
          [none.id, null],
        ] as const)
          await other.importSession({ session: { id, source: 'cli', startedAt: 1, modelConfig } })
        expect((await other.getSession(session.id))?.modelConfig).toEqual(config)
        expect((await other.getSession(none.id))?.modelConfig).toBeNull()
      } finally {
        await other.close()
      }
    })

    it('walks the lineage back to the root and the tip forward', async () => {
      const root = await store.createSession({ source: 'cli' })
      const mid = await store.createSession({ source: 'cli', parentSessionId: root.id })
      const tip = await store.createSession({ source: 'cli', parentSessionId: mid.id })
      expect((await store.getLineage(tip.id)).map((s) => s.id)).toEqual([root.id, mid.id, tip.id])
      expect(await store.resolveTip(root.id)).toBe(tip.id)
      expect(await store.resolveTip(tip.id)).toBe(tip.id)
      await expectCode(store.getLineage('missing'), 'SESSION_NOT_FOUND')
    })

    it('continues a session in a child atomically: ended parent, copied settings, history, episode', async () => {
      const parent = await store.createSession({
        source: 'discord',
        model: 'm',
        userId: 'u',
        title: 't',
        systemPrompt: 'P',
      })
      const [first, last] = await store.appendMessages(parent.id, [
        { role: 'user', content: 'old turn one' },
        { role: 'assistant', content: 'old turn two' },
      ])
      const { session, messages, episode } = await store.continueSession(parent.id, {
        endReason: 'compression',
        messages: [
          { role: 'user', content: '[summary] earlier turns' },
          { role: 'assistant', content: 'continuing' },
        ],
        episode: {
          summary: 'earlier turns',
          firstMessageId: first?.id,
          lastMessageId: last?.id,
          importance: 7,
        },
      })
      expect(session).toMatchObject({
        parentSessionId: parent.id,
        source: 'discord',
        model: 'm',
        userId: 'u',
        title: 't',
        systemPrompt: 'P',
      })
      expect(messages.map((m) => m.sessionId)).toEqual([session.id, session.id])
      expect(await store.getMessages(session.id)).toEqual([
        { role: 'user', content: '[summary] earlier turns' },
        { role: 'assistant', content: 'continuing' },
      ])
      expect(await store.getSession(parent.id)).toMatchObject({ endReason: 'compression', messageCount: 2 })
      expect(episode).toMatchObject({
        sessionId: parent.id,
        firstMessageId: first?.id,
        lastMessageId: last?.id,
        importance: 7,
      })
      expect(await store.resolveTip(parent.id)).toBe(session.id)

      const untouched = await store.createSession({ source: 'cli' })
      await expectCode(
        store.continueSession(untouched.id, {
          endReason: 'compression',
          messages: [{ role: 'tool', content: 'no id' }],
        }),
        'INVALID_MESSAGE',
      )
      await expectCode(
        store.continueSession('missing', { endReason: 'compression', messages: [] }),
        'SESSION_NOT_FOUND',
      )
      expect(await store.getSession(untouched.id)).toMatchObject({ endedAt: null })
      expect(await store.resolveTip(untouched.id)).toBe(untouched.id)
      expect(
        (await store.listSessions({ limit: 1000 })).filter((s) => s.parentSessionId === 'missing'),
      ).toEqual([])
    })

    it('deletes a session with everything it owns and detaches its children', async () => {
      const parent = await store.createSession({ source: 'cli' })
      const child = await store.createSession({ source: 'cli', parentSessionId: parent.id })
      await store.appendMessage(parent.id, { role: 'user', content: 'zebra crossing' })
      await store.recordUsage(parent.id, { model: 'm', purpose: 'main', inputTokens: 5, outputTokens: 1 })
      await store.deleteSession(parent.id)
      expect(await store.getSession(parent.id)).toBeNull()
      expect(await store.getMessages(parent.id)).toEqual([])
      expect(await store.search('zebra')).toEqual([])
      expect((await store.usage()).total.calls).toBe(0)
      expect((await store.getSession(child.id))?.parentSessionId).toBeNull()
      await expectCode(store.deleteSession(parent.id), 'SESSION_NOT_FOUND')
    })
  })

  describe('messages', () => {
    let store: Store
    beforeEach(async () => {
      store = await open()
      return () => store.close()
    })

    it('round-trips every message shape in insertion order', async () => {
      const s = await store.createSession({ source: 'cli' })
      const calls = [toolCall('call_1', 'read_file', { path: 'src/app.ts' })]
      const history = [
        { role: 'system' as const, content: 'You are helpful.' },
        {
          role: 'user' as const,
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          ],
        },
        { role: 'assistant' as const, content: null, tool_calls: calls },
        { role: 'tool' as const, content: 'export const app = 1', tool_call_id: 'call_1', name: 'read_file' },
        { role: 'assistant' as const, content: 'Done.' },
      ]
      for (const [i, m] of history.entries()) {
        // Timestamps run backwards: order must come from the id, never the clock.
        await store.appendMessage(s.id, { ...m, timestamp: 1_000_000 - i })
      }
      expect(await store.getMessages(s.id)).toEqual(history)
      const stored = await store.getStoredMessages(s.id)
      expect(stored.map((m) => m.id)).toEqual([...stored.map((m) => m.id)].sort((a, b) => a - b))
      expect((await store.getSession(s.id))?.messageCount).toBe(5)
      expect((await store.getSession(s.id))?.toolCallCount).toBe(1)
    })

    it('stores tool_calls JSON exactly once, even when given a JSON string', async () => {
      const s = await store.createSession({ source: 'cli' })
      const calls = [toolCall('c1', 'search', { q: 'x "quoted"' })]
      const json = JSON.stringify(calls)
      const fromString = await store.appendMessage(s.id, {
        role: 'assistant',
        content: null,
        tool_calls: json,
      })
      await store.appendMessage(s.id, { role: 'assistant', content: null, tool_calls: calls })
      expect(fromString.tool_calls).toEqual(calls)
      const [a, b] = await store.getMessages(s.id)
      expect(a?.tool_calls).toEqual(calls)
      expect(b?.tool_calls).toEqual(calls)
      await store.close()
    })

    it('returns the stored message with its id from appendMessage', async () => {
      const s = await store.createSession({ source: 'cli' })
      const m = await store.appendMessage(s.id, { role: 'user', content: 'hi', tokenCount: 3 })
      expect(m).toMatchObject({
        id: expect.any(Number),
        sessionId: s.id,
        role: 'user',
        content: 'hi',
        tokenCount: 3,
      })
      const [again] = await store.getStoredMessages(s.id)
      expect(again).toEqual(m)
    })

    it('rejects bad messages with a clear error and writes nothing', async () => {
      const s = await store.createSession({ source: 'cli' })
      const circular: Record<string, unknown> = {}
      circular.self = circular
      const cases: [unknown, RegExp][] = [
        [{ role: 'robot', content: 'x' }, /Invalid role "robot"/],
        [{ role: 'tool', content: 'x' }, /tool_call_id/],
        [{ role: 'assistant', content: null, tool_calls: [circular] }, /cannot be serialised/],
        [{ role: 'assistant', content: null, tool_calls: [{ n: 1n }] }, /cannot be serialised/],
        [{ role: 'assistant', content: null, tool_calls: '{not json' }, /not JSON/],
        [{ role: 'user', content: 42 }, /content must be/],
        [{ role: 'user', content: 'x', tool_calls: [] }, /Only assistant/],
        [{ role: 'user', content: 'x', tokenCount: -1 }, /tokenCount/],
        [{ role: 'user', content: 'x', timestamp: 'yesterday' }, /timestamp/],
        [{ role: 'tool', content: 'x', tool_call_id: 'c1', name: 42 }, /name must be a string/],
      ]
      for (const [bad, message] of cases) {
        const error = await expectCode(store.appendMessage(s.id, bad as never), 'INVALID_MESSAGE')
        expect(error.message).toMatch(message)
      }
      // A batch with one bad message writes none of them.
      await expectCode(
        store.appendMessages(s.id, [
          { role: 'user', content: 'ok' },
          { role: 'robot' as never, content: 'bad' },
        ]),
        'INVALID_MESSAGE',
      )
      expect(await store.getMessages(s.id)).toEqual([])
    })

    it('refuses an unknown session and writes nothing', async () => {
      await expectCode(
        store.appendMessage('missing', { role: 'user', content: 'lost?' }),
        'SESSION_NOT_FOUND',
      )
      await expectCode(
        store.appendMessages('missing', [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ]),
        'SESSION_NOT_FOUND',
      )
      expect(await store.search('lost')).toEqual([])
    })

    it('appends a batch in one transaction, in order', async () => {
      const s = await store.createSession({ source: 'cli' })
      const stored = await store.appendMessages(
        s.id,
        Array.from({ length: 50 }, (_, i) => ({
          role: i % 2 ? ('assistant' as const) : ('user' as const),
          content: `m${i}`,
        })),
      )
      expect(stored.map((m) => m.content)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`))
      expect((await store.getMessages(s.id)).map((m) => m.content)).toEqual(stored.map((m) => m.content))
    })

    it('appends by ref once: a retried or concurrent write of the same refs stores nothing twice', async () => {
      const s = await store.createSession({ source: 'mcp' })
      const other = await store.createSession({ source: 'mcp' })
      const first = await store.appendMessagesOnce(s.id, [
        { ref: 'u1', role: 'user', content: 'hello' },
        { ref: 'a1', role: 'assistant', content: 'hi' },
      ])
      expect(first.stored.map((m) => m.content)).toEqual(['hello', 'hi'])
      expect(first.existing).toEqual([])
      const [retry, racing] = await Promise.all([
        store.appendMessagesOnce(s.id, [
          { ref: 'a1', role: 'assistant', content: 'hi' },
          { ref: 'u2', role: 'user', content: 'next' },
        ]),
        store.appendMessagesOnce(s.id, [{ ref: 'u2', role: 'user', content: 'next' }]),
      ])
      expect(retry.existing).toContain('a1')
      expect([...retry.stored, ...racing.stored].map((m) => m.content)).toEqual(['next'])
      expect((await store.getMessages(s.id)).map((m) => m.content)).toEqual(['hello', 'hi', 'next'])
      // A ref is unique per session, not per store; plain appends never collide with refs.
      await store.appendMessagesOnce(other.id, [{ ref: 'u1', role: 'user', content: 'elsewhere' }])
      await store.appendMessages(s.id, [
        { role: 'user', content: 'plain' },
        { role: 'user', content: 'plain' },
      ])
      expect(await store.getMessages(other.id)).toHaveLength(1)
      expect(await store.getMessages(s.id)).toHaveLength(5)
      await expectCode(
        store.appendMessagesOnce('missing', [{ ref: 'x', role: 'user', content: 'x' }]),
        'SESSION_NOT_FOUND',
      )
      await expectCode(
        store.appendMessagesOnce(s.id, [{ role: 'user', content: 'no ref' } as never]),
        'INVALID_ARGUMENT',
      )
    })
  })

  describe('usage', () => {
    it('records every model call and totals it by purpose and model', async () => {
      const store = await open()
      const s = await store.createSession({ source: 'cli' })
      const other = await store.createSession({ source: 'cli' })
      await store.recordUsage(s.id, {
        model: 'big',
        purpose: 'main',
        inputTokens: 1000,
        outputTokens: 200,
        costUsd: 0.01,
      })
      await store.recordUsage(s.id, {
        model: 'big',
        purpose: 'main',
        inputTokens: 1500,
        outputTokens: 100,
        cacheReadTokens: 900,
      })
      await store.recordUsage(s.id, {
        model: 'cheap',
        purpose: 'compression',
        inputTokens: 400,
        outputTokens: 80,
        latencyMs: 120,
      })
      await store.recordUsage(other.id, { model: 'big', purpose: 'main', inputTokens: 7, outputTokens: 7 })
      const report = await store.usage({ sessionId: s.id })
      expect(report.total).toMatchObject({
        calls: 3,
        inputTokens: 2900,
        outputTokens: 380,
        cacheReadTokens: 900,
      })
      expect(report.byPurpose.main).toMatchObject({ calls: 2, inputTokens: 2500 })
      expect(report.byPurpose.compression).toMatchObject({ calls: 1, inputTokens: 400 })
      expect(report.byModel.cheap?.outputTokens).toBe(80)
      expect((await store.usage()).total.calls).toBe(4)
      expect(await store.getSession(s.id)).toMatchObject({
        inputTokens: 2900,
        outputTokens: 380,
        costUsd: 0.01,
      })
      await expectCode(
        store.recordUsage('missing', { model: 'm', purpose: 'main', inputTokens: 1, outputTokens: 1 }),
        'SESSION_NOT_FOUND',
      )
      await expectCode(
        store.recordUsage(s.id, { model: 'm', purpose: 'main', inputTokens: -1, outputTokens: 1 }),
        'INVALID_ARGUMENT',
      )
      await store.close()
    })
  })

  describe('usage groups', () => {
    it('totals per purpose and model in order, and an imported group keeps its call count in one row', async () => {
      const path = h.path()
      const store = await open(path)
      const s = await store.createSession({ source: 'cli' })
      await store.recordUsage(s.id, { model: 'big', purpose: 'main', inputTokens: 10, outputTokens: 1 })
      await store.recordUsage(s.id, { model: 'big', purpose: 'main', inputTokens: 20, outputTokens: 2 })
      await store.recordUsage(s.id, {
        model: 'a-cheap',
        purpose: 'compression',
        inputTokens: 5,
        outputTokens: 1,
      })
      const groups = await store.usageGroups({ sessionId: s.id })
      expect(groups.map((g) => [g.purpose, g.model, g.calls, g.inputTokens])).toEqual([
        ['compression', 'a-cheap', 1, 5],
        ['main', 'big', 2, 30],
      ])
      const imported = await store.importSession({
        session: { id: 'imported-usage', source: 'hermes', startedAt: 1_000 },
        usage: [
          {
            purpose: 'main',
            model: 'big',
            calls: 40,
            inputTokens: 4000,
            outputTokens: 400,
            cacheReadTokens: 7,
            cacheWriteTokens: 3,
            costUsd: 0.5,
          },
        ],
      })
      expect(imported.session).toMatchObject({ inputTokens: 4000, outputTokens: 400, costUsd: 0.5 })
      expect((await store.usage({ sessionId: 'imported-usage' })).total).toEqual({
        calls: 40,
        inputTokens: 4000,
        outputTokens: 400,
        cacheReadTokens: 7,
        cacheWriteTokens: 3,
        costUsd: 0.5,
      })
      await store.close()
      // read behind the store's back, through the engine's own driver
      const driver = await h.driver(path, { readOnly: true })
      try {
        const { rows } = await driver.execute<{ n: number }>({
          sql: "SELECT count(*) AS n FROM model_calls WHERE session_id = 'imported-usage'",
        })
        expect(Number(rows[0]?.n)).toBe(1)
      } finally {
        await driver.close()
      }
    })
  })

  describe('importing a session', () => {
    let store: Store
    beforeEach(async () => {
      store = await open()
      return () => store.close()
    })

    it('writes a whole session with its own id, times, end, messages, usage and episodes', async () => {
      const parent = await store.importSession({
        session: {
          id: 'p1',
          source: 'hermes',
          userId: 'u1',
          title: 'Deploy',
          startedAt: 1_000,
          endedAt: 5_000,
          endReason: 'compression',
        },
        messages: [
          { role: 'user', content: 'how do we deploy?', timestamp: 1_100, tokenCount: 4 },
          {
            role: 'assistant',
            content: null,
            tool_calls: [toolCall('c1', 'terminal', { cmd: 'cat fly.toml' })],
            timestamp: 1_200,
          },
          { role: 'tool', tool_call_id: 'c1', name: 'terminal', content: 'app = "api"', timestamp: 1_300 },
        ],
        episodes: [
          { summary: 'They deploy with fly.', importance: 7, firstMessageIndex: 0, lastMessageIndex: 2 },
        ],
      })
      expect(parent).toMatchObject({ created: true, messages: 3 })
      expect(parent.session).toMatchObject({
        id: 'p1',
        userId: 'u1',
        startedAt: 1_000,
        endedAt: 5_000,
        endReason: 'compression',
        messageCount: 3,
        toolCallCount: 1,
      })
      const stored = await store.getStoredMessages('p1')
      expect(stored.map((m) => m.timestamp)).toEqual([1_100, 1_200, 1_300])
      const [episode] = await store.getEpisodes('p1')
      expect(episode).toMatchObject({
        importance: 7,
        firstMessageId: stored[0]?.id,
        lastMessageId: stored[2]?.id,
      })
      const child = await store.importSession({
        session: { id: 'c1', source: 'hermes', userId: 'u1', parentSessionId: 'p1', startedAt: 6_000 },
        messages: [{ role: 'user', content: '[summary] deploy with fly', timestamp: 6_100 }],
      })
      expect(child.session.parentSessionId).toBe('p1')
      expect(await store.resolveTip('p1')).toBe('c1')
      expect((await store.search('fly')).length).toBeGreaterThan(0)
    })

    it('writes nothing for a session already present, and nothing at all for a parent of another user', async () => {
      const first = await store.importSession({
        session: { id: 'once', source: 'x', startedAt: 1 },
        messages: [{ role: 'user', content: 'a' }],
      })
      const again = await store.importSession({
        session: { id: 'once', source: 'x', startedAt: 1 },
        messages: [{ role: 'user', content: 'b' }],
      })
      expect(again).toMatchObject({ created: false, messages: 0 })
      expect(again.session).toEqual(first.session)
      expect((await store.getMessages('once')).map((m) => m.content)).toEqual(['a'])
      await store.importSession({ session: { id: 'theirs', source: 'x', userId: 'u2', startedAt: 1 } })
      await expectCode(
        store.importSession({
          session: { id: 'orphan', source: 'x', userId: 'u1', parentSessionId: 'theirs', startedAt: 2 },
          messages: [{ role: 'user', content: 'lost?' }],
          usage: [
            {
              purpose: 'main',
              model: 'm',
              calls: 1,
              inputTokens: 1,
              outputTokens: 1,
              cacheReadTokens: 0,
              cacheWriteTokens: 0,
              costUsd: 0,
            },
          ],
        }),
        'SESSION_NOT_FOUND',
      )
      expect(await store.getSession('orphan')).toBeNull()
      expect((await store.usage()).total.calls).toBe(0)
      expect(await store.search('lost')).toEqual([])
    })

    it('refuses a bad message or an episode pointing past the messages, writing nothing', async () => {
      await expectCode(
        store.importSession({
          session: { id: 'bad', source: 'x', startedAt: 1 },
          messages: [{ role: 'robot', content: 'x' } as never],
        }),
        'INVALID_MESSAGE',
      )
      await expectCode(
        store.importSession({
          session: { id: 'bad', source: 'x', startedAt: 1 },
          messages: [{ role: 'user', content: 'x' }],
          episodes: [{ summary: 's', firstMessageIndex: 0, lastMessageIndex: 1 }],
        }),
        'INVALID_ARGUMENT',
      )
      expect(await store.getSession('bad')).toBeNull()
    })
  })

  describe('session references', () => {
    let store: Store
    beforeEach(async () => {
      store = await open()
      return () => store.close()
    })

    it('resolves latest, a full id and a unique prefix, within a source and user, and names what is ambiguous', async () => {
      await store.createSession({ id: '20260301_090000_aaaa', source: 'hermes', userId: 'u1' })
      await store.createSession({ id: '20260301_100000_bbbb', source: 'hermes', userId: 'u2' })
      const cli = await store.createSession({ source: 'cli' })
      expect((await store.resolveSession('latest')).id).toBe(cli.id)
      expect((await store.resolveSession('latest', { source: 'hermes' })).id).toBe('20260301_100000_bbbb')
      expect((await store.resolveSession('latest', { source: 'hermes', userId: 'u1' })).id).toBe(
        '20260301_090000_aaaa',
      )
      expect((await store.resolveSession('latest', { userId: null })).id).toBe(cli.id)
      expect((await store.resolveSession(cli.id)).id).toBe(cli.id)
      expect((await store.resolveSession('20260301_09')).id).toBe('20260301_090000_aaaa')
      await expectCode(store.resolveSession('20260301'), 'INVALID_ARGUMENT')
      expect((await store.resolveSession('20260301', { userId: 'u2' })).id).toBe('20260301_100000_bbbb')
      // Another user's session is as good as missing, by id and by prefix.
      await expectCode(store.resolveSession('20260301_090000_aaaa', { userId: 'u2' }), 'SESSION_NOT_FOUND')
      await expectCode(store.resolveSession('zz'), 'SESSION_NOT_FOUND')
      await expectCode(store.resolveSession('latest', { source: 'nobody' }), 'SESSION_NOT_FOUND')
      await expectCode(store.resolveSession(''), 'INVALID_ARGUMENT')
    })
  })

  describe('opening', () => {
    it.skipIf(file)(
      'refuses a file that is not a database and leaves it as it was (sqliteFile)',
      async () => {
        const garbage = join(dir, `garbage-${driver}.db`)
        writeFileSync(garbage, Buffer.alloc(8192, 'this is not sqlite '))
        const error = await expectCode(open(garbage), 'NOT_A_DATABASE')
        expect(error.message).toMatch(/not an SQLite database/)
        expect(readFileSync(garbage).subarray(0, 19).toString()).toBe('this is not sqlite ')
      },
    )

    it('fails clearly once closed', async () => {
      const store = await open()
      await store.close()
      await expectCode(store.listSessions(), 'STORE_CLOSED')
    })
  })

  describe('maintenance', () => {
    it('finds a graph item written again by its new text, never by its old one', async () => {
      // two AFTER UPDATE triggers ran newest first on SQLite: the item's index entry lost its size
      // row and the item was never found again (fixed by migration 0016)
      const store = await open(h.path())
      try {
        const put = (text: string) =>
          store.graph.items.put('me', [{ namespace: 'prefs', key: 'theme', value: '{}', text }])
        const found = async (query: string) =>
          (await store.graph.items.search('me', { prefix: '', query, limit: 5 })).map((i) => i.key)
        await put('dark theme preferred, 深色主题')
        expect(await found('dark')).toEqual(['theme'])
        await put('light theme preferred, 浅色主题')
        expect(await found('light')).toEqual(['theme'])
        expect(await found('浅色')).toEqual(['theme'])
        expect(await found('dark')).toEqual([])
        expect(await found('深色')).toEqual([])
        expect(await found('主题')).toEqual(['theme'])
      } finally {
        await store.close()
      }
    })

    it.skipIf(file)(
      "hands every write path's index text to the index and keeps no copy of it (sqliteFile)",
      async () => {
        const path = h.path()
        const store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        const deploy = toolCall('c1', 'kubectl_rollout', { target: '生产集群' })
        await store.appendMessages(s.id, [
          { role: 'user', content: '我们把发布窗口改到周四' },
          { role: 'assistant', content: null, tool_calls: [deploy] },
        ])
        await store.appendMessagesOnce(s.id, [{ ref: 'r1', role: 'user', content: '回滚计划写好了' }])
        // a ref the session holds: nothing written, nothing indexed
        await store.appendMessagesOnce(s.id, [{ ref: 'r1', role: 'user', content: '重复的消息不该被找到' }])
        const { session: child } = await store.continueSession(s.id, {
          endReason: 'compression',
          messages: [{ role: 'user', content: '压缩以后的摘要' }],
        })
        await store.importSession({
          session: { id: 'imported-1', source: 'cli', startedAt: 1 },
          messages: [{ role: 'user', content: '导入的会话也能搜到' }],
        })
        const found = async (query: string) =>
          (await store.search(query)).map((hit) => [hit.sessionId, hit.snippet])
        expect(await found('发布窗口')).toEqual([[s.id, expect.stringContaining('«发布窗口»')]])
        // a tool call's name and arguments, CJK included, and its snippet made from them
        expect(await found('生产集群')).toEqual([
          [s.id, expect.stringMatching(/^kubectl_rollout .*«生产集群»/)],
        ])
        expect(await found('回滚计划')).toEqual([[s.id, expect.stringContaining('«回滚计划»')]])
        expect(await found('重复')).toEqual([])
        expect(await found('摘要')).toEqual([[child.id, expect.stringContaining('«摘要»')]])
        expect(await found('导入')).toEqual([['imported-1', expect.stringContaining('«导入»')]])
        expect((await store.checkIntegrity()).ok).toBe(true)
        await store.close()

        const db = raw(path)
        const copies = db.prepare("SELECT count(*) FROM messages WHERE search_text <> ''").pluck().get()
        const handed = db.prepare("SELECT count(*) FROM messages WHERE search_text = ''").pluck().get()
        db.close()
        expect([copies, handed]).toEqual([0, 5])
      },
    )

    it.skipIf(file)(
      'indexes a row another tool rewrites as its new content, and the check and the rebuild see it (sqliteFile)',
      async () => {
        const path = h.path()
        const store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        await store.appendMessage(s.id, { role: 'user', content: '部署后端服务 alpha' })
        await store.close()
        const db = raw(path)
        db.prepare("UPDATE messages SET content = '数据库迁移 bravo'").run()
        db.close()
        const reopened = await open(path)
        expect(await reopened.search('alpha')).toEqual([])
        expect((await reopened.search('bravo')).length).toBe(1)
        // indexed as its content: the CJK run is one token until the rebuild splits it
        expect(await reopened.search('迁移')).toEqual([])
        expect((await reopened.checkIntegrity()).searchIndex.messages).toMatch(/does not match/)
        await reopened.rebuildSearchIndex()
        expect((await reopened.search('迁移')).length).toBe(1)
        expect((await reopened.checkIntegrity()).ok).toBe(true)
        await reopened.close()
      },
    )

    describe.skipIf(file)('new messages wait for their index entries (sqliteFile)', () => {
      /** How many messages the store's file lists as waiting, read on its own connection. */
      const waiting = async (store: Store) =>
        (await store.db.select({ n: count() }).from(messagesUnindexed))[0]?.n
      /** Rows written into the closed file as another writer or tool would, without the store. */
      const writeBehind = (path: string, write: (db: Database.Database) => void) => {
        const db = raw(path)
        write(db)
        db.close()
      }

      it('in batches: a burst of appends waits at most one batch, and every search finds them all', async () => {
        const path = h.path()
        const store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        // no turn of the event loop between these appends: each batch is indexed by the append completing it
        for (let i = 0; i < 2 * INDEX_BATCH + 22; i++)
          await store.appendMessage(s.id, { role: 'user', content: `burst ${i} kiwi` })
        expect(await waiting(store)).toBe(22)
        expect(await store.search('kiwi', { limit: 500 })).toHaveLength(2 * INDEX_BATCH + 22)
        expect(await waiting(store)).toBe(0)
        // fewer than a batch are indexed as soon as the process goes idle, without a search
        await store.appendMessages(s.id, [
          { role: 'user', content: 'a lone mango' },
          { role: 'assistant', content: '芒果很好吃' },
        ])
        expect(await waiting(store)).toBe(2)
        await new Promise((resolve) => setImmediate(resolve))
        expect(await waiting(store)).toBe(0)
        expect((await store.search('芒果')).map((hit) => hit.snippet)).toEqual(['«芒果»很好吃'])
        expect((await store.checkIntegrity()).ok).toBe(true)
        await store.close()
      })

      it('a long text is indexed by its own append', async () => {
        const path = h.path()
        const store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        await store.appendMessage(s.id, { role: 'assistant', content: 'a long answer '.repeat(3000) })
        expect(await waiting(store)).toBe(0)
        await store.close()
      })

      it('one another writer left is found by the next search, which never waits for a writer', async () => {
        const path = h.path()
        let store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        await store.close()
        // as a writer killed before it indexed them leaves them: rows, listed, without entries
        writeBehind(path, (db) => {
          const insert = db.prepare(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, 1)",
          )
          for (const content of ['papaya one', 'papaya two', 'papaya three']) insert.run(s.id, content)
        })
        store = await open(path)
        expect(await waiting(store)).toBe(3)
        // the check knows they have no entry yet
        expect((await store.checkIntegrity()).ok).toBe(true)
        const release = await holdWriteLock(path)
        try {
          expect(await store.search('papaya')).toEqual([])
        } finally {
          await release()
        }
        expect(await waiting(store)).toBe(3)
        expect(await store.search('papaya')).toHaveLength(3)
        expect(await waiting(store)).toBe(0)
        expect((await store.checkIntegrity()).ok).toBe(true)
        await store.close()
      })

      it('any mix of appends, idle turns, writes behind its back, rebuilds and reopens: every search finds exactly the rows there are', async () => {
        type Op =
          | { kind: 'append'; n: number; oneByOne: boolean }
          | { kind: 'idle' | 'rebuild' | 'reopen' }
          | { kind: 'behind'; insert: number; remove: number; rewrite: number }
        const op: fc.Arbitrary<Op> = fc.oneof(
          fc.record({
            kind: fc.constant('append' as const),
            n: fc.integer({ min: 1, max: 90 }),
            oneByOne: fc.boolean(),
          }),
          fc.record({ kind: fc.constantFrom('idle' as const, 'rebuild' as const, 'reopen' as const) }),
          fc.record({
            kind: fc.constant('behind' as const),
            insert: fc.integer({ min: 0, max: 3 }),
            remove: fc.nat(),
            rewrite: fc.nat(),
          }),
        )
        let runs = 0
        await fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
            runs += 1
            const path = h.path()
            let store = await open(path)
            const s = await store.createSession({ source: 'cli' })
            // each row's one word, by id: what a search of that word must find
            const words = new Map<number, string>()
            let next = 0
            // the store's writes carry CJK too; another tool's are indexed as their content, which splits no
            // CJK run (the check reports those until a rebuild: 'indexes a row another tool rewrites')
            const word = (cjk = true) => `w${runs}x${next++}${cjk && next % 3 === 0 ? ' 数据迁移' : ''}`
            try {
              for (const o of ops) {
                if (o.kind === 'append') {
                  const texts = Array.from({ length: o.n }, () => word())
                  const stored = o.oneByOne
                    ? await texts.reduce<Promise<{ id: number }[]>>(
                        async (done, content) => [
                          ...(await done),
                          await store.appendMessage(s.id, { role: 'user', content }),
                        ],
                        Promise.resolve([]),
                      )
                    : await store.appendMessages(
                        s.id,
                        texts.map((content) => ({ role: 'user' as const, content })),
                      )
                  for (const [i, m] of stored.entries()) words.set(m.id, texts[i] as string)
                } else if (o.kind === 'idle') await new Promise((resolve) => setImmediate(resolve))
                else if (o.kind === 'rebuild') await store.rebuildSearchIndex()
                else if (o.kind === 'reopen') {
                  await store.close()
                  store = await open(path)
                } else if (o.kind === 'behind') {
                  await store.close()
                  const ids = [...words.keys()]
                  writeBehind(path, (db) => {
                    for (let i = 0; i < o.insert; i++) {
                      const content = word(false)
                      const { lastInsertRowid } = db
                        .prepare(
                          "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, 1)",
                        )
                        .run(s.id, content)
                      words.set(Number(lastInsertRowid), content)
                    }
                    if (ids.length > 0) {
                      const gone = ids[o.remove % ids.length] as number
                      db.prepare('DELETE FROM messages WHERE id = ?').run(gone)
                      words.delete(gone)
                      const changed = ids[o.rewrite % ids.length] as number
                      if (words.has(changed)) {
                        const content = word(false)
                        db.prepare('UPDATE messages SET content = ? WHERE id = ?').run(content, changed)
                        words.set(changed, content)
                      }
                    }
                  })
                  store = await open(path)
                }
              }
              for (const [id, content] of words) {
                const [first] = content.split(' ')
                expect((await store.search(first as string)).map((hit) => hit.messageId)).toEqual([id])
              }
              expect(await waiting(store)).toBe(0)
              expect((await store.checkIntegrity()).ok).toBe(true)
            } finally {
              await store.close()
            }
          }),
          { numRuns: 25 },
        )
        expect(runs).toBeGreaterThanOrEqual(25)
      })

      it('one another tool deletes or rewrites while it waits is indexed as it is then, or not at all', async () => {
        const path = h.path()
        let store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        await store.close()
        let rewritten = 0
        writeBehind(path, (db) => {
          const insert = db.prepare(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, 1)",
          )
          const gone = insert.run(s.id, 'quince gone').lastInsertRowid
          rewritten = Number(insert.run(s.id, 'quince before').lastInsertRowid)
          db.prepare('DELETE FROM messages WHERE id = ?').run(gone)
          db.prepare("UPDATE messages SET content = 'quince after' WHERE id = ?").run(rewritten)
        })
        store = await open(path)
        expect(await waiting(store)).toBe(0)
        expect((await store.search('quince')).map((hit) => hit.messageId)).toEqual([rewritten])
        expect(await store.search('before')).toEqual([])
        expect(await store.search('gone')).toEqual([])
        expect((await store.checkIntegrity()).ok).toBe(true)
        await store.rebuildSearchIndex()
        expect((await store.search('quince after')).map((hit) => hit.messageId)).toEqual([rewritten])
        await store.close()
      })
    })

    it.skipIf(file)('finds a damaged search index and repairs it by rebuilding (sqliteFile)', async () => {
      const path = h.path()
      const store = await open(path)
      const s = await store.createSession({ source: 'cli' })
      await store.appendMessage(s.id, { role: 'user', content: 'alpha bravo' })
      await store.appendMessage(s.id, { role: 'user', content: '部署后端服务' })
      expect((await store.checkIntegrity()).ok).toBe(true)
      await store.close()

      // Another tool writes behind the triggers' back: the index no longer matches the table.
      const db = raw(path)
      const trigger = db
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'messages_fts_update'")
        .pluck()
        .get() as string
      db.exec(
        "DROP TRIGGER messages_fts_update; UPDATE messages SET content = 'charlie delta', search_text = NULL WHERE content = 'alpha bravo'",
      )
      db.exec(trigger)
      // a row written without its index text: its CJK run is one token, which a search cannot find
      db.exec(
        `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('${s.id}', 'user', '数据库迁移完成', 1)`,
      )
      db.close()

      const reopened = await open(path)
      expect(await reopened.getSession(s.id)).toMatchObject({ messageCount: 3 })
      const report = await reopened.checkIntegrity()
      expect(report.ok).toBe(false)
      expect(report.database).toEqual(['ok'])
      expect(report.searchIndex.messages).not.toBe('ok')
      expect(await reopened.search('迁移')).toEqual([])

      await reopened.rebuildSearchIndex()
      expect((await reopened.checkIntegrity()).ok).toBe(true)
      expect((await reopened.search('charlie')).length).toBe(1)
      expect(await reopened.search('alpha')).toEqual([])
      expect((await reopened.search('迁移')).length).toBe(1)
      await reopened.close()
    })

    it('reads a message another tool wrote with parts that are not JSON as an error that names it and the repair', async () => {
      const path = h.path()
      const store = await open(path)
      const s = await store.createSession({ source: 'cli' })
      const [, odd] = await store.appendMessages(s.id, [
        { role: 'user', content: 'first' },
        { role: 'user', content: 'deploy kilo' },
      ])
      const id = odd?.id as number
      await h.rawWrite(path, 'UPDATE messages SET content_parts = ? WHERE id = ?', [
        '{"token":"sk-behind-the-back',
        id,
      ])
      for (const read of [
        () => store.getMessages(s.id),
        () => store.readAround(id),
        () => store.exportSession(s.id),
      ]) {
        const error = await expectCode(read(), 'DATABASE_ERROR')
        expect(error.message).toContain(`message ${id}: its content_parts column holds text that is not JSON`)
        expect(error.message).toContain(`UPDATE messages SET content_parts = NULL WHERE id = ${id}`)
        expect(error.message).not.toContain('sk-behind')
      }
      // the rest of the store goes on: search finds the row by its content, and the advised repair works
      expect((await store.search('kilo')).map((hit) => hit.messageId)).toEqual([id])
      await h.rawWrite(path, 'UPDATE messages SET content_parts = NULL WHERE id = ?', [id])
      expect((await store.getMessages(s.id)).map((m) => m.content)).toEqual(['first', 'deploy kilo'])
      await store.close()
    })

    it.skipIf(file)(
      'checks and rebuilds the index over tool calls another tool wrote that are not an array (sqliteFile)',
      async () => {
        const path = h.path()
        let store = await open(path)
        const s = await store.createSession({ source: 'cli' })
        const [odd] = await store.appendMessages(s.id, [
          { role: 'assistant', content: 'deploy kilo 部署后端' },
        ])
        const id = odd?.id as number
        // SQLite's count triggers take any JSON (json_array_length of an object is 0)
        for (const json of ['{"function":{"name":"x"}}', 'null', '"text"']) {
          await store.close()
          const db = raw(path)
          db.prepare('UPDATE messages SET tool_calls = ? WHERE id = ?').run(json, id)
          db.close()
          store = await open(path)
          await store.rebuildSearchIndex()
          expect((await store.checkIntegrity()).ok).toBe(true)
          expect((await store.search('部署')).map((hit) => hit.messageId)).toEqual([id])
          expect((await store.search('kilo')).map((hit) => hit.messageId)).toEqual([id])
          const error = await expectCode(store.getMessages(s.id), 'DATABASE_ERROR')
          expect(error.message).toContain(
            `message ${id}: its tool_calls column holds JSON that is not an array`,
          )
        }
        await store.close()
      },
    )

    it('reports a sound file as sound while another connection writes between checks', async () => {
      const path = h.path()
      const store = await open(path)
      const other = await open(path)
      const s = await other.createSession({ source: 'cli' })
      try {
        for (let round = 0; round < 8; round++) {
          // each append its own transaction: new index segments, merged by FTS5 as they pile up
          for (let i = 0; i < 40; i++) {
            await other.appendMessage(s.id, { role: 'user', content: `第 ${round} 轮 message ${i} deploy` })
          }
          expect(await store.checkIntegrity(), `round ${round}`).toMatchObject({ ok: true, database: ['ok'] })
          expect((await store.search('deploy', { limit: 1 })).length).toBe(1)
        }
      } finally {
        await Promise.all([store.close(), other.close()])
      }
    })

    it.skipIf(file)(
      'compares the message index with the messages again when another connection writes during the check (sqliteFile)',
      async () => {
        const path = h.path()
        const other = await open(path)
        const s = await other.createSession({ source: 'cli' })
        await other.appendMessage(s.id, { role: 'user', content: '检查之前的消息 tango' })
        // once the check has indexed the messages again, and before it compares, another store appends
        let appended = 0
        const driver = writingOnce(
          await h.driver(path, { readOnly: false }),
          (statement) => statement.sql.includes('USING fts5vocab(main, messages_fts'),
          async () => {
            appended++
            await other.appendMessage(s.id, { role: 'user', content: '检查之中写下的消息 uniform' })
          },
        )
        const store = await openStoreWithDriver(driver)
        try {
          expect(await store.checkIntegrity()).toMatchObject({ ok: true, status: 'ok' })
          expect(appended).toBe(1)
        } finally {
          await Promise.all([store.close(), other.close()])
        }
      },
    )

    it('keeps what another connection writes and deletes while a rebuild reads', async () => {
      const path = h.path()
      const other = await open(path)
      const gone = await other.createSession({ source: 'cli' })
      await other.appendMessage(gone.id, { role: 'user', content: '被删除的会话 oscar' })
      const kept = await other.createSession({ source: 'cli' })
      await other.appendMessage(kept.id, { role: 'user', content: '留下的消息 papa' })
      // the newest rows: once deleted, SQLite gives their ids to the next rows written
      const newest = await other.createSession({ source: 'cli' })
      const [reused] = await other.appendMessages(newest.id, [{ role: 'user', content: '最新的会话 sierra' }])
      // The rebuilding store's driver lets the other connection write once the rebuild has read every
      // message and before it writes: rows it never read, rows it read that are then deleted, and a new
      // row under the id of one it read.
      let written: number[] = []
      const driver = writingOnce(
        await h.driver(path, { readOnly: false }),
        (statement, result) =>
          statement.sql.startsWith('SELECT id, content, tool_calls, search_text FROM messages') &&
          result.rows.length === 0,
        async () => {
          await other.deleteSession(gone.id)
          await other.deleteSession(newest.id)
          const rows = await other.appendMessages(kept.id, [
            { role: 'user', content: '重建时写下的消息 quebec' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [toolCall('c1', 'deploy_romeo', { 目标: '生产' })],
            },
          ])
          written = rows.map((row) => row.id)
        },
      )
      const store = await openStoreWithDriver(driver)
      await store.rebuildSearchIndex()
      expect(written).toHaveLength(2)
      // SQLite reuses the id (PostgreSQL's sequence does not): the rebuild read another text under it
      if (h.capabilities.sqliteFile) expect(written[0]).toBe(reused?.id)
      const sessionsOf = async (query: string) => (await store.search(query)).map((hit) => hit.sessionId)
      expect(await sessionsOf('quebec')).toEqual([kept.id])
      expect(await sessionsOf('重建')).toEqual([kept.id])
      expect(await sessionsOf('deploy_romeo')).toEqual([kept.id])
      expect(await sessionsOf('papa')).toEqual([kept.id])
      for (const deleted of ['oscar', '删除', 'sierra', '最新']) expect(await sessionsOf(deleted)).toEqual([])
      expect((await store.checkIntegrity()).ok).toBe(true)
      // the next rebuild, with nobody writing, empties the index whole and agrees
      await store.rebuildSearchIndex()
      expect(await sessionsOf('quebec')).toEqual([kept.id])
      expect(await sessionsOf('sierra')).toEqual([])
      expect((await store.checkIntegrity()).ok).toBe(true)
      await Promise.all([store.close(), other.close()])
    })

    it('prunes only ended sessions past the cutoff, detaching their children', async () => {
      const store = await open()
      const ended = await store.createSession({ source: 'cron' })
      const open_ = await store.createSession({ source: 'cron' })
      const otherSource = await store.createSession({ source: 'cli' })
      const child = await store.createSession({ source: 'cron', parentSessionId: ended.id })
      await store.appendMessage(ended.id, { role: 'user', content: 'old news' })
      await store.endSession(ended.id, 'done')
      await store.endSession(otherSource.id, 'done')
      await new Promise((r) => setTimeout(r, 5))
      expect(await store.pruneSessions({ olderThanDays: 1 })).toBe(0)
      const preview = await store.pruneSessions({ olderThanDays: 0, source: 'cron', dryRun: true })
      expect(preview.count).toBe(1)
      expect(preview.sessions.map((s) => s.id)).toEqual([ended.id])
      expect(await store.getSession(ended.id)).not.toBeNull()
      expect(await store.pruneSessions({ olderThanDays: 0, source: 'cron' })).toBe(1)
      expect(await store.getSession(ended.id)).toBeNull()
      expect(await store.search('news')).toEqual([])
      expect(await store.getSession(open_.id)).not.toBeNull()
      expect(await store.getSession(otherSource.id)).not.toBeNull()
      expect((await store.getSession(child.id))?.parentSessionId).toBeNull()
      await store.vacuum()
      expect((await store.checkIntegrity()).ok).toBe(true)
      await store.close()
    })
  })

  describe.skipIf(file)('databases that are not ours (sqliteFile)', () => {
    const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
    const applicationId = (path: string) => {
      const db = raw(path)
      try {
        return db.pragma('application_id', { simple: true })
      } finally {
        db.close()
      }
    }
    const foreignFile = (setup: string) => {
      const path = h.path()
      const db = raw(path)
      db.exec(setup)
      db.close()
      return path
    }

    it.each([
      [
        'a sessions table of its own',
        "CREATE TABLE sessions (id INTEGER PRIMARY KEY, cookie TEXT); INSERT INTO sessions VALUES (1, 'x')",
      ],
      [
        'unrelated tables',
        'CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); CREATE INDEX invoices_total ON invoices (total)',
      ],
      ['another application_id', 'PRAGMA application_id = 42'],
      [
        "another drizzle app's history",
        "CREATE TABLE __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric); INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('abc', 1); CREATE TABLE users (id INTEGER)",
      ],
    ])('refuses a database with %s and leaves it byte-identical', async (_, setup) => {
      const path = foreignFile(setup)
      const before = sha256(path)
      const error = await expectCode(open(path), 'FOREIGN_DATABASE')
      expect(error.message).toMatch(/not an Engram database .*left untouched.*new path/)
      expect(sha256(path)).toBe(before)
      expect(existsSync(`${path}-wal`)).toBe(false)
    })

    it('names the foreign tables it found', async () => {
      const error = await expectCode(
        open(foreignFile('CREATE TABLE invoices (id INTEGER)')),
        'FOREIGN_DATABASE',
      )
      expect(error.message).toContain('invoices')
    })

    it('marks what it creates, and opens an empty file', async () => {
      const path = h.path()
      writeFileSync(path, '')
      await (await open(path)).close()
      expect(applicationId(path)).toBe(ENGRAM_APPLICATION_ID)
      const reopened = await open(path)
      expect(await reopened.listSessions()).toEqual([])
      await reopened.close()
    })

    it('marks an Engram database made before the mark when it upgrades it', async () => {
      // The database as it was before migration 0004 set the mark.
      const path = h.path()
      const oldDriver = await h.driver(path, { readOnly: false })
      await migrate(oldDriver, migrationsBefore('0004_'))
      await oldDriver.close()
      expect(applicationId(path)).toBe(0)
      const store = await open(path)
      await store.close()
      expect(applicationId(path)).toBe(ENGRAM_APPLICATION_ID)
    })
  })

  describe('text comes back as it went in', () => {
    // Any code point, NULs often; ill-formed UTF-16 (lone surrogates) is a question of its own.
    const text = fc
      .string({
        unit: fc.oneof(
          fc.constant('\0'),
          fc.constant('\uE000'),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        ),
        maxLength: 300,
      })
      .filter((t) => !/[\uD800-\uDFFF]/u.test(t))

    it('keeps ids, prompts, titles, content and summaries byte for byte, NULs included', async () => {
      const store = await open()
      let n = 0
      try {
        await fc.assert(
          fc.asyncProperty(text, text, text, async (a, b, c) => {
            n += 1
            const id = `${n}:${a}`
            const userId = `u${b}`
            await store.createSession({ id, source: `s${c}`, userId, title: b, systemPrompt: c })
            expect(await store.getSession(id)).toMatchObject({
              id,
              userId,
              title: b,
              systemPrompt: c,
              source: `s${c}`,
            })
            expect((await store.listSessions({ userId })).map((s) => s.id)).toContain(id)
            await store.appendMessage(id, { role: 'user', content: a })
            const prompt = `${c}\0${a}`
            await store.setSystemPrompt(id, prompt)
            expect((await store.getMessages(id)).map((m) => m.content)).toEqual([a])
            expect((await store.getSession(id))?.systemPrompt).toBe(prompt)
            const episode = await store.addEpisode({ sessionId: id, summary: `e${b}`, content: a })
            expect(episode).toMatchObject({ sessionId: id, summary: `e${b}`, content: a })
            expect((await store.getEpisodes(id)).map((e) => [e.summary, e.content])).toEqual([[`e${b}`, a]])
          }),
          { numRuns: 60 },
        )
        expect(n).toBeGreaterThanOrEqual(60)
      } finally {
        await store.close()
      }
    })

    it('keeps NUL in tool calls, tool results, names and ids, finds the words around it, and exports it', async () => {
      const store = await open()
      const other = await open()
      try {
        const s = await store.createSession({ source: 'cli', userId: 'nul\0user' })
        const callId = 'call\0one\uE000'
        const messages: MessageInput[] = [
          { role: 'user', name: 'Ann\0Lee', content: 'read the file please\0zebrafish' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [toolCall(callId, 'read\0file', { path: 'a\0b' })],
          },
          {
            role: 'tool',
            tool_call_id: callId,
            content: 'PK\u0003\u0004\0\0 \uE000 \uE0000 okapi\0\0tail words',
          },
          { role: 'assistant', content: 'It is a zip archive.' },
        ]
        await store.appendMessages(s.id, messages)
        await store.setSystemPrompt(s.id, 'be brief\0always')
        const back = await store.getMessages(s.id)
        expect(back.map((m) => [m.role, m.content, m.name ?? null, m.tool_call_id ?? null])).toEqual(
          messages.map((m) => [m.role, m.content, m.name ?? null, m.tool_call_id ?? null]),
        )
        expect(back[1]?.tool_calls).toEqual(messages[1]?.tool_calls)
        // searchable around the NUL: the words on either side of it, in content and in a tool result
        const scope = { userId: 'nul\0user', includeRetrieval: true }
        for (const word of ['zebrafish', 'okapi', 'tail'])
          expect((await store.search(word, scope)).map((hit) => hit.snippet)).toEqual([
            expect.stringContaining(`«${word}»`),
          ])
        // a session copied to another store (migrate --from) carries it whole
        const exported = await store.exportSession(s.id)
        if (exported === null) throw new Error('no export')
        expect(exported.session.systemPrompt).toBe('be brief\0always')
        const { session } = exported
        await other.importSession({
          session: {
            id: session.id,
            source: session.source,
            userId: session.userId,
            systemPrompt: session.systemPrompt,
            startedAt: session.startedAt,
          },
          messages: exported.messages.map(({ role, content, name, tool_calls, tool_call_id }) => ({
            role,
            content,
            ...(name === undefined ? {} : { name }),
            ...(tool_calls === undefined ? {} : { tool_calls }),
            ...(tool_call_id === undefined ? {} : { tool_call_id }),
          })) as MessageInput[],
        })
        expect(await other.getMessages(s.id)).toEqual(back)
        expect((await other.getSession(s.id))?.systemPrompt).toBe('be brief\0always')
        expect((await other.search('okapi', scope)).length).toBe(1)
      } finally {
        await store.close()
        await other.close()
      }
    })
  })

  describe.skipIf(file)('after a busy error (sqliteFile)', () => {
    it('every store operation works once another process has released its write lock', async () => {
      const path = h.path()
      const store = await open(path, { busyTimeout: 50, retry: { attempts: 1 } })
      let release: (() => Promise<void>) | undefined
      try {
        const s = await store.createSession({ source: 'cli' })
        await store.appendMessage(s.id, { role: 'user', content: 'before the lock' })
        await store.addEpisode({ sessionId: s.id, summary: 'an episode before the lock' })
        release = await holdWriteLock(path)
        // Each of these stops on the lock, in autocommit statements and in transactions.
        await expectCode(store.appendMessage(s.id, { role: 'user', content: 'during' }), 'DATABASE_BUSY')
        await expectCode(store.createSession({ source: 'cli' }), 'DATABASE_BUSY')
        await expectCode(store.rebuildSearchIndex(), 'DATABASE_BUSY')
        await store.checkIntegrity().catch(() => undefined)
        await release()

        const t = await store.createSession({ source: 'cli', parentSessionId: s.id })
        await store.appendMessages(t.id, [
          { role: 'user', content: 'after the lock' },
          { role: 'assistant', content: 'still writing' },
        ])
        await store.setSystemPrompt(t.id, 'prompt')
        await store.recordUsage(t.id, { model: 'm', purpose: 'chat', inputTokens: 1, outputTokens: 2 })
        await store.addEpisode({ sessionId: t.id, summary: 'an episode after the lock' })
        await store.endSession(s.id, 'done')
        const continued = await store.continueSession(t.id, {
          endReason: 'compression',
          messages: [{ role: 'user', content: 'next' }],
        })
        expect((await store.getMessages(t.id)).map((m) => m.content)).toEqual([
          'after the lock',
          'still writing',
        ])
        expect((await store.search('lock')).length).toBeGreaterThanOrEqual(3)
        expect((await store.getLineage(continued.session.id)).map((x) => x.id)).toEqual([
          s.id,
          t.id,
          continued.session.id,
        ])
        await store.rebuildSearchIndex()
        expect((await store.checkIntegrity()).ok).toBe(true)
        await new Promise((resolve) => setTimeout(resolve, 5))
        expect(await store.pruneSessions({ olderThanDays: 0 })).toBe(2)
        await store.deleteSession(continued.session.id)
        await store.vacuum()
        expect(await store.listSessions()).toEqual([])
      } finally {
        await release?.()
        await store.close()
      }
    }, 600_000)
  })

  describe('closing', () => {
    const handlesOn = (path: string) =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(path)
        } catch {
          return false
        }
      }).length

    it.skipIf(file || !existsSync('/proc/self/fd'))(
      'releases every file handle and removes the -wal and -shm files, 50 times over (sqliteFile)',
      async () => {
        const path = h.path()
        await (await open(path)).close()
        expect(handlesOn(path)).toBe(0)
        let opened = 0
        for (let i = 0; i < 50; i++) {
          const store = await open(path)
          opened = Math.max(opened, handlesOn(path))
          const s = await store.createSession({ source: 'cli' })
          await store.appendMessage(s.id, { role: 'user', content: `cycle ${i}` })
          expect((await store.search(`cycle`)).length).toBeGreaterThan(0)
          await store.close()
        }
        expect(opened).toBeGreaterThan(0)
        expect(handlesOn(path)).toBe(0)
        expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([false, false])
      },
      600_000,
    )
  })
}
