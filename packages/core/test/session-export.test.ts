import { describe, expect, it } from 'vitest'
import type { SessionExport, Store } from '../src/index.ts'
import { comparable, tempDbPath, tempDir, withStore } from './helpers.ts'

const dir = tempDir()

/** A session with a ref'd message, two model calls (one with latency), an episode that was hit, and a child. */
async function seed(store: Store): Promise<string> {
  const s = await store.createSession({ source: 'mcp', userId: 'u1', title: 'refs' })
  await store.appendMessagesOnce(s.id, [
    { role: 'user', content: 'first', ref: 'client-1' },
    { role: 'assistant', content: 'second', ref: 'client-2', tokenCount: 3 },
  ])
  await store.appendMessage(s.id, { role: 'user', content: 'no ref 部署' })
  await store.recordUsage(s.id, {
    model: 'm',
    purpose: 'main',
    inputTokens: 10,
    outputTokens: 2,
    latencyMs: 40,
  })
  await store.recordUsage(s.id, {
    model: 'm',
    purpose: 'main',
    inputTokens: 5,
    outputTokens: 1,
    costUsd: 0.25,
  })
  await store.addEpisode({ sessionId: s.id, summary: 'about 部署', firstMessageId: 2, lastMessageId: 3 })
  await store.search('部署') // counts a hit on the episode
  await store.endSession(s.id, 'compression')
  return s.id
}

const asImport = (dump: SessionExport) => {
  const position = new Map(dump.messages.map((m, i) => [m.id, i]))
  return {
    session: dump.session,
    messages: dump.messages.map(({ tokenCount, ...m }) => ({
      ...m,
      ...(tokenCount === null ? {} : { tokenCount }),
    })),
    modelCalls: dump.modelCalls,
    episodes: dump.episodes.map((e) => ({
      ...e,
      firstMessageIndex: position.get(e.firstMessageId ?? -1) ?? null,
      lastMessageIndex: position.get(e.lastMessageId ?? -1) ?? null,
    })),
  }
}

describe('Store.exportSession and importSession', () => {
  it('copies a session whole: refs, model calls with their times and latency, episode hit statistics', async () => {
    const source = tempDbPath(dir)
    const dump = await withStore({ url: source }, async (store) => {
      const id = await seed(store)
      return (await store.exportSession(id)) as SessionExport
    })
    expect(dump.messages.map((m) => m.ref)).toEqual(['client-1', 'client-2', undefined])
    expect(dump.modelCalls.map((c) => [c.calls, c.inputTokens, c.latencyMs])).toEqual([
      [1, 10, 40],
      [1, 5, null],
    ])
    expect(dump.episodes[0]?.hitCount).toBe(1)
    await withStore({ url: tempDbPath(dir) }, async (target) => {
      const done = await target.importSession(asImport(dump))
      expect(done).toMatchObject({ created: true, messages: 3 })
      const copy = (await target.exportSession(dump.session.id)) as SessionExport
      expect(comparable(copy)).toEqual(comparable(dump))
      // The refs work in the new store: a retried client write is recognised, not stored twice.
      const retry = await target.appendMessagesOnce(dump.session.id, [
        { role: 'user', content: 'first', ref: 'client-1' },
      ])
      expect(retry).toEqual({ stored: [], existing: ['client-1'] })
      expect((await target.dailyUsage()).map((d) => d.calls)).toEqual([2])
    })
  })

  it('returns null for an unknown session and refuses usage given twice or a ref repeated, writing nothing', async () => {
    await withStore({ url: tempDbPath(dir) }, async (store) => {
      expect(await store.exportSession('missing')).toBeNull()
      const session = { id: 's1', source: 'cli', startedAt: 1 }
      const call = {
        model: 'm',
        purpose: 'main',
        calls: 1,
        inputTokens: 1,
        outputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        latencyMs: null,
        createdAt: 2,
      }
      await expect(store.importSession({ session, usage: [call], modelCalls: [call] })).rejects.toMatchObject(
        { code: 'INVALID_ARGUMENT', message: expect.stringContaining('not both') },
      )
      await expect(
        store.importSession({
          session,
          messages: [
            { role: 'user', content: 'a', ref: 'r' },
            { role: 'user', content: 'b', ref: 'r' },
          ],
        }),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('message 2 has the ref "r"'),
      })
      expect(await store.getSession('s1')).toBeNull()
    })
  })

  it('reports the migrations a store found and applied: all on a new database, none on reopening', async () => {
    const path = tempDbPath(dir)
    const first = await withStore({ url: path }, async (store) => store.migrations)
    expect(first.before).toBe(0)
    expect(first.after).toBeGreaterThan(0)
    const again = await withStore({ url: path }, async (store) => store.migrations)
    expect(again).toEqual({ before: first.after, after: first.after })
  })
})
