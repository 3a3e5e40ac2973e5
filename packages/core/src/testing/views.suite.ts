import { afterEach, describe, expect, it, vi } from 'vitest'
import { expectCode, type Harness } from './harness.ts'

const DAY = 86_400_000
const DAY_1 = Date.UTC(2026, 10, 3, 23, 0) // 2026-11-03 23:00 UTC
const DAY_2 = DAY_1 + 2 * 3_600_000 // 2026-11-04 01:00 UTC: the next UTC day, two hours later

/** The paged reads a viewer of a large store needs: sessions by date, transcripts by page, usage by day. */
export function viewsSuite(h: Harness): void {
  afterEach(() => vi.useRealTimers())

  describe('views', () => {
    it('filters sessions by start time, with the other filters and keyset paging', async () => {
      const store = await h.open()
      vi.useFakeTimers({ toFake: ['Date'] })
      const ids: string[] = []
      for (let day = 0; day < 5; day++) {
        vi.setSystemTime(DAY_1 + day * DAY)
        ids.push((await store.createSession({ source: day % 2 ? 'cli' : 'telegram' })).id)
      }
      const between = await store.listSessions({ startedAfter: DAY_1 + DAY, startedBefore: DAY_1 + 4 * DAY })
      expect(between.map((s) => s.id)).toEqual([ids[3], ids[2], ids[1]])
      expect(
        (await store.listSessions({ startedAfter: DAY_1 + DAY, source: 'cli' })).map((s) => s.id),
      ).toEqual([ids[3], ids[1]])
      const first = await store.listSessionsPage({ startedBefore: DAY_1 + 4 * DAY, limit: 2 })
      const second = await store.listSessionsPage({
        startedBefore: DAY_1 + 4 * DAY,
        limit: 2,
        cursor: first.nextCursor ?? '',
      })
      expect([...first.items, ...second.items].map((s) => s.id)).toEqual([ids[3], ids[2], ids[1], ids[0]])
      await expectCode(store.listSessions({ startedAfter: Number.NaN }), 'INVALID_ARGUMENT')
      await store.close()
    })

    it('reads a transcript page by page, in insertion order, exactly once each', async () => {
      const store = await h.open()
      const s = await store.createSession({ source: 'cli' })
      const other = await store.createSession({ source: 'cli' })
      await store.appendMessages(
        s.id,
        Array.from(
          { length: 250 },
          (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }) as const,
        ),
      )
      await store.appendMessage(other.id, { role: 'user', content: 'not this one' })
      const seen: string[] = []
      const sizes: number[] = []
      let cursor: string | undefined
      do {
        const page = await store.getStoredMessagesPage(s.id, { limit: 100, cursor })
        sizes.push(page.items.length)
        seen.push(...page.items.map((m) => String(m.content)))
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      expect(sizes).toEqual([100, 100, 50])
      expect(seen).toEqual((await store.getStoredMessages(s.id)).map((m) => String(m.content)))
      const all = await store.getStoredMessages(s.id)
      const from = await store.getStoredMessagesPage(s.id, { fromId: all[120]?.id, limit: 3 })
      expect(from.items.map((m) => m.content)).toEqual(['m120', 'm121', 'm122'])
      await expectCode(
        store.getStoredMessagesPage(s.id, { fromId: 5, cursor: from.nextCursor ?? '' }),
        'INVALID_ARGUMENT',
      )
      expect((await store.getStoredMessagesPage('missing')).items).toEqual([])
      await expectCode(store.getStoredMessagesPage(s.id, { cursor: 'nope' }), 'INVALID_ARGUMENT')
      await expectCode(store.getStoredMessagesPage(s.id, { limit: 0 }), 'INVALID_ARGUMENT')
      await store.close()
    })

    it('sums model calls by UTC day and purpose, within a time range and for one session', async () => {
      const store = await h.open()
      const s = await store.createSession({ source: 'cli' })
      const other = await store.createSession({ source: 'cli' })
      vi.useFakeTimers({ toFake: ['Date'] })
      const call = (purpose: string, inputTokens: number, costUsd = 0) =>
        store.recordUsage(s.id, { model: 'm', purpose, inputTokens, outputTokens: 1, costUsd })
      vi.setSystemTime(DAY_1)
      await call('main', 100, 0.5)
      await call('main', 50)
      await call('compression', 10)
      vi.setSystemTime(DAY_2)
      await call('main', 7)
      await store.recordUsage(other.id, { model: 'm', purpose: 'nudge', inputTokens: 3, outputTokens: 0 })
      const all = await store.dailyUsage()
      expect(all).toEqual([
        { day: '2026-11-03', purpose: 'compression', calls: 1, inputTokens: 10, outputTokens: 1, costUsd: 0 },
        { day: '2026-11-03', purpose: 'main', calls: 2, inputTokens: 150, outputTokens: 2, costUsd: 0.5 },
        { day: '2026-11-04', purpose: 'main', calls: 1, inputTokens: 7, outputTokens: 1, costUsd: 0 },
        { day: '2026-11-04', purpose: 'nudge', calls: 1, inputTokens: 3, outputTokens: 0, costUsd: 0 },
      ])
      expect((await store.dailyUsage({ since: DAY_2 })).map((r) => r.purpose)).toEqual(['main', 'nudge'])
      expect((await store.dailyUsage({ until: DAY_2 })).map((r) => r.day)).toEqual([
        '2026-11-03',
        '2026-11-03',
      ])
      expect((await store.dailyUsage({ sessionId: other.id })).map((r) => r.purpose)).toEqual(['nudge'])
      await expectCode(store.dailyUsage({ since: Number.POSITIVE_INFINITY }), 'INVALID_ARGUMENT')
      await store.close()
    })
  })
}
