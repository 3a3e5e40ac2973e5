import { openSync, statSync, truncateSync, writeSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { EngramError } from '../errors.ts'
import type { Store } from '../store/store.ts'
import { expectCode, type Harness, holdWriteLock } from './harness.ts'

/** Store guarantees that came from trying to break it: run once per driver. */
export function reliabilitySuite(h: Harness): void {
  const { open } = h

  /**
   * A store that would wait ten minutes for a write lock: a call that waits for one fails by the test's
   * timeout, so "does not wait" is checked without timing anything.
   */
  async function withEpisode(path: string): Promise<{ store: Store; sessionId: string }> {
    const store = await open(path, { busyTimeout: 600_000 })
    const s = await store.createSession({ source: 'cli' })
    await store.appendMessage(s.id, { role: 'user', content: 'the quarterly report is due' })
    await store.addEpisode({ sessionId: s.id, summary: 'quarterly report planning' })
    return { store, sessionId: s.id }
  }

  describe('search never writes or waits on a writer', () => {
    it.skipIf(!h.capabilities.sqliteFile)(
      'answers at once with episodes while another connection holds the write lock (sqliteFile)',
      async () => {
        const path = h.path()
        const { store, sessionId } = await withEpisode(path)
        const release = await holdWriteLock(path)
        try {
          const hits = await store.search('quarterly')
          expect(hits.map((hit) => hit.kind)).toEqual(['episode', 'message'])
        } finally {
          await release()
        }
        // The count was skipped while the lock was held, and is taken again once it is free.
        expect((await store.getEpisodes(sessionId))[0]?.hitCount).toBe(0)
        await store.search('quarterly')
        expect((await store.getEpisodes(sessionId))[0]?.hitCount).toBe(1)
        await store.close()
      },
    )

    it('searches a database opened read-only', async () => {
      const path = h.path()
      const { store, sessionId } = await withEpisode(path)
      await store.close()
      const readOnly = await h.openReadOnly(path)
      try {
        const hits = await readOnly.search('quarterly')
        expect(hits.map((hit) => hit.kind)).toEqual(['episode', 'message'])
      } finally {
        await readOnly.close()
      }
      const reopened = await open(path)
      expect((await reopened.getEpisodes(sessionId))[0]?.hitCount).toBe(0)
      await reopened.close()
    })
  })

  describe.skipIf(!h.capabilities.sqliteFile)('checkIntegrity reports, never throws (sqliteFile)', () => {
    it('reports a held write lock as busy, distinctly from damage, without waiting', async () => {
      const path = h.path()
      const { store } = await withEpisode(path)
      const release = await holdWriteLock(path)
      try {
        const report = await store.checkIntegrity()
        expect(report).toMatchObject({ ok: false, status: 'busy', database: ['ok'] })
        expect(report.fix).toMatch(/write lock/)
      } finally {
        await release()
      }
      expect(await store.checkIntegrity()).toMatchObject({ ok: true, status: 'ok', fix: null })
      await store.close()
    })

    /** A closed database file of a few hundred pages of messages. */
    async function filledFile(): Promise<string> {
      const path = h.path()
      const store = await open(path)
      const s = await store.createSession({ source: 'cli' })
      const rows = Array.from({ length: 400 }, (_, i) => ({
        role: 'user' as const,
        content: `row ${i} `.repeat(40),
      }))
      await store.appendMessages(s.id, rows)
      await store.close()
      return path
    }

    it('reports corrupted pages with the fix', async () => {
      const path = await filledFile()
      const pageSize = 4096
      const pages = statSync(path).size / pageSize
      expect(pages).toBeGreaterThan(20)
      const fd = openSync(path, 'r+')
      // Garbage over a run of pages in the middle of the file (the header and schema stay readable).
      for (let page = Math.floor(pages / 2); page < Math.floor(pages / 2) + 5; page++) {
        writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, page * pageSize)
      }
      const damaged = await open(path)
      const report = await damaged.checkIntegrity()
      expect(report.ok).toBe(false)
      expect(report.status).toBe('corrupt')
      expect(report.database.length).toBeGreaterThan(0)
      expect(report.database[0]).not.toBe('ok')
      expect(report.fix).toMatch(/backup.*\.recover/)
      await damaged.close()
    })

    it('reports a truncated file with the fix, at open or in the report', async () => {
      const path = await filledFile()
      truncateSync(path, Math.floor(statSync(path).size / 2))
      const opened = await open(path).then(
        (damaged) => damaged,
        (error: unknown) => error,
      )
      if (opened instanceof Error) {
        expect((opened as EngramError).code).toBe('DATABASE_CORRUPT')
        expect(opened.message).toMatch(/backup.*\.recover/)
        return
      }
      const damaged = opened as Store
      const report = await damaged.checkIntegrity()
      expect(report).toMatchObject({ ok: false, status: 'corrupt' })
      expect(report.fix).toMatch(/backup.*\.recover/)
      await damaged.close()
    })
  })

  describe('identifiers and text', () => {
    it('refuses ill-formed ids, user ids and sources instead of letting them collide', async () => {
      const store = await open()
      const cases = [
        store.createSession({ source: 'cli', id: '\ud800' }),
        store.createSession({ source: 'cli', userId: '\udfff' }),
        store.createSession({ source: 'a\ud800b' }),
        store.getSession('\ud800'),
        store.search('x', { userId: '\ud800' }),
        store.listSessions({ source: '\udc00' }),
        store.appendMessage('\ud800', { role: 'user', content: 'x' }),
      ]
      for (const pending of cases) {
        const error = await expectCode(pending, 'INVALID_ARGUMENT')
        expect(error.message).toMatch(/well-formed.*toWellFormed/)
      }
      expect(await store.listSessions()).toEqual([])
      await store.close()
    })

    it('refuses a lone surrogate in text columns, and keeps it losslessly inside content parts', async () => {
      const store = await open()
      const s = await store.createSession({ source: 'cli' })
      const error = await expectCode(
        store.appendMessage(s.id, { role: 'user', content: 'half \ud83d of an emoji' }),
        'INVALID_MESSAGE',
      )
      expect(error.message).toMatch(/lone UTF-16 surrogate/)
      await expectCode(store.setSystemPrompt(s.id, 'x\udfff'), 'INVALID_ARGUMENT')
      const parts = [{ type: 'text' as const, text: 'half \ud83d of an emoji' }]
      await store.appendMessage(s.id, { role: 'user', content: parts })
      expect(await store.getMessages(s.id)).toEqual([{ role: 'user', content: parts }])
      await store.close()
    })
  })

  describe('lineage stays with one user', () => {
    it("refuses a child of another user's session", async () => {
      const store = await open()
      const alice = await store.createSession({ source: 'cli', userId: 'alice' })
      const error = await expectCode(
        store.createSession({ source: 'cli', userId: 'bob', parentSessionId: alice.id }),
        'SESSION_NOT_FOUND',
      )
      expect(error.message).toMatch(/belongs to its parent's user/)
      await expectCode(store.createSession({ source: 'cli', parentSessionId: alice.id }), 'SESSION_NOT_FOUND')
      expect(await store.listSessions({ userId: 'bob' })).toEqual([])
      await store.close()
    })

    it('never crosses users in lineage or tip, even over links written before the check', async () => {
      const path = h.path()
      const store = await open(path)
      const alice = await store.createSession({ source: 'cli', userId: 'alice' })
      const bob = await store.createSession({ source: 'cli', userId: 'bob' })
      const bobChild = await store.createSession({ source: 'cli', userId: 'bob', parentSessionId: bob.id })
      await h.rawWrite(path, 'UPDATE sessions SET parent_session_id = ? WHERE id = ?', [alice.id, bob.id])
      expect((await store.getLineage(bobChild.id)).map((s) => s.id)).toEqual([bob.id, bobChild.id])
      expect(await store.resolveTip(alice.id)).toBe(alice.id)
      expect(await store.resolveTip(bob.id)).toBe(bobChild.id)
      await store.close()
    })
  })

  describe('closing', () => {
    it('waits for work in flight and refuses work started after close()', async () => {
      const store = await open()
      const s = await store.createSession({ source: 'cli' })
      await store.appendMessages(
        s.id,
        Array.from({ length: 200 }, (_, i) => ({ role: 'user' as const, content: `needle ${i}` })),
      )
      const search = store.search('needle', { limit: 50 })
      const closed = store.close()
      const late = expectCode(
        store.appendMessage(s.id, { role: 'user', content: 'after close' }),
        'STORE_CLOSED',
      )
      expect((await search).length).toBe(50)
      await late
      await closed
      await expectCode(store.getMessages(s.id), 'STORE_CLOSED')
      await store.close()
    })
  })

  describe('one validation layer', () => {
    let store: Store
    const setUp = async () => {
      store = await open()
      return store.createSession({ source: 'cli' })
    }

    it('gives INVALID_MESSAGE or INVALID_ARGUMENT, never a TypeError or a bind error', async () => {
      const s = await setUp()
      await expectCode(
        store.appendMessage(s.id, { role: 'user', content: [1, null, 's'] as never }),
        'INVALID_MESSAGE',
      )
      await expectCode(
        store.continueSession(s.id, { endReason: 'x', messages: 'x' as never }),
        'INVALID_ARGUMENT',
      )
      for (const tokenCount of [-5, 'abc', Number.NaN, 1.5]) {
        await expectCode(
          store.addEpisode({ sessionId: s.id, summary: 'sum', tokenCount: tokenCount as never }),
          'INVALID_ARGUMENT',
        )
      }
      await expectCode(
        store.addEpisode({ sessionId: s.id, summary: 'sum', content: 5 as never }),
        'INVALID_ARGUMENT',
      )
      for (const inputTokens of [1.5, 1e300, Number.NaN]) {
        await expectCode(
          store.recordUsage(s.id, { model: 'm', purpose: 'main', inputTokens, outputTokens: 0 }),
          'INVALID_ARGUMENT',
        )
      }
      for (const id of [{ id: 1 }, ['x'], 5, null]) {
        await expectCode(store.getSession(id as never), 'INVALID_ARGUMENT')
        await expectCode(store.getMessages(id as never), 'INVALID_ARGUMENT')
        await expectCode(store.appendMessage(id as never, { role: 'user', content: 'x' }), 'INVALID_ARGUMENT')
      }
      expect(await store.getEpisodes(s.id)).toEqual([])
      expect((await store.usage()).total.calls).toBe(0)
      await store.close()
    })

    it('refuses since and until that are not times instead of matching nothing', async () => {
      const s = await setUp()
      await store.appendMessage(s.id, { role: 'user', content: 'timely words' })
      for (const since of ['abc', Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = await expectCode(store.search('timely', { since: since as never }), 'INVALID_ARGUMENT')
        expect(error.message).toMatch(/since/)
      }
      await expectCode(store.search('timely', { until: 'tomorrow' as never }), 'INVALID_ARGUMENT')
      expect((await store.search('timely', { since: 0 })).length).toBe(1)
      await store.close()
    })
  })

  describe('keyset pages', () => {
    it('lists every session exactly once while sessions are being added', async () => {
      const store = await open()
      const original = new Set<string>()
      for (let i = 0; i < 23; i++) original.add((await store.createSession({ source: 'cli' })).id)
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = await store.listSessionsPage({ limit: 5, ...(cursor ? { cursor } : {}) })
        seen.push(...page.items.map((s) => s.id))
        // New sessions arrive between pages, ahead of the cursor.
        await store.createSession({ source: 'cli' })
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      expect(new Set(seen).size).toBe(seen.length)
      expect(seen.filter((id) => original.has(id)).length).toBe(original.size)
      await expectCode(store.listSessionsPage({ cursor: 'not-a-cursor' }), 'INVALID_ARGUMENT')
      await store.close()
    })

    it('pages a time-ordered search exactly once while messages are being added', async () => {
      const store = await open()
      const s = await store.createSession({ source: 'cli' })
      await store.addEpisode({ sessionId: s.id, summary: 'kiwi summary' })
      const first = await store.appendMessages(
        s.id,
        Array.from({ length: 17 }, (_, i) => ({
          role: 'user' as const,
          content: `kiwi ${i}`,
          timestamp: 1000 + i,
        })),
      )
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = await store.searchPage('kiwi', {
          sort: 'newest',
          limit: 4,
          ...(cursor ? { cursor } : {}),
        })
        seen.push(...page.items.map((h) => `${h.kind}:${h.episodeId ?? h.messageId}`))
        await store.appendMessage(s.id, { role: 'user', content: 'kiwi late', timestamp: 5000 })
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      expect(seen.length).toBe(18)
      expect(new Set(seen).size).toBe(18)
      expect(seen.slice(1)).toEqual([...first].reverse().map((m) => `message:${m.id}`))
      await expectCode(store.searchPage('kiwi', { limit: 4 }), 'INVALID_ARGUMENT')
      await store.close()
    })
  })
}
