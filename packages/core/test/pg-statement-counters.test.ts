import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStoreWithDriver } from '../src/open-store.ts'
import { newPglite } from './pglite-template.ts'
import { pgliteBefore } from './postgres-helpers.ts'

let database: PGlite
beforeAll(async () => {
  database = await newPglite()
})
afterAll(() => database?.close())

const calls = (n: number) =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      type: 'function',
      function: { name: 'f', arguments: '{}' },
    })),
  )

// The store contract checks the counters through the store's own writes on every driver; this checks what
// the statement triggers of 0011 add: statements of other tools over several sessions at once, a retried
// append that stores nothing, and counts written before the migration.
describe("PostgreSQL's session counters, kept per statement (0011)", () => {
  it('counts what each INSERT and DELETE statement wrote, over several sessions at once', async () => {
    const { driver, migration } = await pgliteBefore(database, 'statement_counters', (tag) =>
      tag.endsWith('_statement_counters'),
    )
    const counts = async () =>
      (
        await driver.execute<{ id: string; message_count: number; tool_call_count: number }>({
          sql: 'SELECT id, message_count, tool_call_count FROM sessions ORDER BY id',
        })
      ).rows.map((r) => [r.id, Number(r.message_count), Number(r.tool_call_count)])
    await driver.batch([
      { sql: "INSERT INTO sessions (id, source, started_at) VALUES ('a', 'cli', 1), ('b', 'cli', 1)" },
      {
        sql: "INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES ('a', 'user', 'before', NULL, 1), ('a', 'assistant', NULL, ?, 1)",
        params: [calls(2)],
      },
    ])
    const store = await openStoreWithDriver(driver, {})
    try {
      // the counts the row triggers kept before the migration carry on
      expect(await counts()).toEqual([
        ['a', 2, 2],
        ['b', 0, 0],
      ])
      const triggers = await driver.execute<{ tgname: string; per_row: boolean }>({
        sql: "SELECT tgname, (tgtype & 1) = 1 AS per_row FROM pg_trigger WHERE tgrelid = 'messages'::regclass AND tgname LIKE 'messages_count%' ORDER BY tgname",
      })
      expect(triggers.rows).toEqual([
        { tgname: 'messages_count_deleted', per_row: false },
        { tgname: 'messages_count_inserted', per_row: false },
        { tgname: 'messages_count_update', per_row: true },
      ])
      // one statement into two sessions, with tool calls
      await driver.execute({
        sql: "INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES ('a', 'user', 'x', NULL, 2), ('b', 'assistant', NULL, ?, 2), ('b', 'assistant', NULL, ?, 2), ('b', 'user', 'y', NULL, 2)",
        params: [calls(3), calls(1)],
      })
      expect(await counts()).toEqual([
        ['a', 3, 2],
        ['b', 3, 4],
      ])
      // the store's append, then the same statement again (a retry after a lost reply) stores nothing
      const appended = await store.appendMessages('a', [
        { role: 'user', content: 'through the store' },
        { role: 'assistant', content: null, tool_calls: JSON.parse(calls(1)) },
      ])
      expect(appended).toHaveLength(2)
      expect(await counts()).toEqual([
        ['a', 5, 3],
        ['b', 3, 4],
      ])
      await driver.execute({
        sql: "INSERT INTO messages (session_id, role, content, ref, timestamp) VALUES ('a', 'user', 'r', 't.0', 3)",
      })
      await driver.execute({
        sql: "INSERT INTO messages (session_id, role, content, ref, timestamp) VALUES ('a', 'user', 'r', 't.0', 3) ON CONFLICT DO NOTHING",
      })
      expect(await counts()).toEqual([
        ['a', 6, 3],
        ['b', 3, 4],
      ])
      // one DELETE over both sessions; moving a message keeps the row trigger's counts
      await driver.execute({
        sql: "DELETE FROM messages WHERE id IN ((SELECT min(id) FROM messages WHERE session_id = 'b' AND tool_calls IS NOT NULL), (SELECT max(id) FROM messages WHERE session_id = 'a' AND tool_calls IS NOT NULL))",
      })
      expect(await counts()).toEqual([
        ['a', 5, 2],
        ['b', 2, 1],
      ])
      await driver.execute({
        sql: "UPDATE messages SET session_id = 'b' WHERE session_id = 'a' AND content = 'x'",
      })
      expect(await counts()).toEqual([
        ['a', 4, 2],
        ['b', 3, 1],
      ])
      expect((await store.getSession('b'))?.messageCount).toBe(3)
      // run again (the store contract re-runs migrations): nothing changes, and the counts still follow
      await driver.batch(migration.split('--> statement-breakpoint').map((sql) => ({ sql })))
      await store.appendMessages(
        'b',
        Array.from({ length: 2_500 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
      )
      expect(await counts()).toEqual([
        ['a', 4, 2],
        ['b', 2_503, 1],
      ])
    } finally {
      await store.close()
    }
  })
})
