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

describe('PostgreSQL migration 0007 (retrieval traffic) on a populated schema', () => {
  it('marks the stored session_search / memory calls, their results and the replies reporting them', async () => {
    const { driver } = await pgliteBefore(database, 'retrieval_upgrade', (tag) => tag.startsWith('0007_'))
    const call = (id: string, name: string) =>
      JSON.stringify([{ id, type: 'function', function: { name, arguments: '{"query":"release window"}' } }])
    const rows: [string, string | null, string | null, string | null][] = [
      ['user', 'We moved the release window to Thursday.', null, null],
      ['user', 'When is the release window?', null, null],
      ['assistant', null, call('c1', 'session_search'), null],
      ['tool', 'No past session matches "release window".', null, 'c1'],
      ['assistant', 'I found nothing about "release window" in past conversations.', null, null],
      ['assistant', null, call('c3', 'read_file'), null],
      ['tool', 'release window notes', null, 'c3'],
      ['assistant', 'The notes say Thursday.', null, null],
      // a call PostgreSQL's JSON refuses is left as it is, not a failed migration
      ['assistant', null, '[{"id":"c9","function":{"name":"memory","arguments":"\\u0000"}}]', null],
    ]
    await driver.batch([
      { sql: "INSERT INTO sessions (id, source, started_at) VALUES ('old-r', 'cli', 1)" },
      ...rows.map(([role, content, toolCalls, callId], i) => ({
        sql: 'INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, timestamp) VALUES (?, ?, ?, ?, ?, ?)',
        params: ['old-r', role, content, toolCalls, callId, i + 1],
      })),
    ])
    const store = await openStoreWithDriver(driver, {})
    try {
      const stored = await store.getStoredMessages('old-r')
      expect(stored.map((m) => m.retrieval === true)).toEqual([
        false,
        false,
        ...[true, true, true],
        ...[false, false, false],
        false,
      ])
      // engram_keyword_hits (a plain search) leaves them out too
      const shown = (await store.search('release window', { limit: 50 })).map((hit) => hit.snippet)
      expect(shown.join('\n')).not.toMatch(/No past session|found nothing/)
      expect(shown.length).toBe(3)
    } finally {
      await store.close()
    }
  })
})
