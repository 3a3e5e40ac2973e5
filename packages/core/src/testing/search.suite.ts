import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toMatchQuery } from '../dialects/sqlite/match.ts'
import { COMMON_TERM_MESSAGES } from '../search/tiers.ts'
import type { Store } from '../store/store.ts'
import type { SearchHit } from '../types.ts'
import type { Harness } from './harness.ts'
import { countWorkAsync } from './work.ts'

/** store.search on a real database: ranking, filters, user scoping, CJK, episodes, megabyte rows. */
export function searchSuite(h: Harness): void {
  const driver = h.name
  let store: Store
  const ids = { alice: '', bob: '', cron: '' }

  beforeAll(async () => {
    store = await h.open()
    const alice = await store.createSession({ source: 'cli', userId: 'alice' })
    const bob = await store.createSession({ source: 'telegram', userId: 'bob' })
    const cron = await store.createSession({ source: 'cron', userId: 'alice' })
    ids.alice = alice.id
    ids.bob = bob.id
    ids.cron = cron.id
    await store.appendMessages(alice.id, [
      { role: 'user', content: 'What did we decide about the database migration?', timestamp: 1000 },
      {
        role: 'assistant',
        content: 'We decided to run the database migration with drizzle-kit on Friday.',
        timestamp: 2000,
      },
      { role: 'user', content: '我们用 FastAPI 做后端，Agent通信 已经 100%完成', timestamp: 3000 },
      { role: 'assistant', content: 'デプロイは明日です。カタカナのテスト', timestamp: 4000 },
      { role: 'user', content: '데이터베이스를 백업했습니다', timestamp: 5000 },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'chat-send', arguments: '{"file":"my-app.config.ts"}' },
          },
        ],
        timestamp: 6000,
      },
      { role: 'tool', tool_call_id: 'c1', name: 'chat-send', content: 'sent', timestamp: 7000 },
    ])
    await store.appendMessages(bob.id, [
      { role: 'user', content: 'bob private: the database password rotation plan', timestamp: 1500 },
      { role: 'user', content: '鲍勃的后端秘密', timestamp: 2500 },
    ])
    await store.appendMessage(cron.id, {
      role: 'assistant',
      content: 'nightly database vacuum finished',
      timestamp: 8000,
    })
  })
  afterAll(() => store.close())

  it('finds Chinese, Japanese and Korean by 1-, 2- and 3+-character queries', async () => {
    for (const query of [
      '后端',
      '后',
      '做后端',
      'Agent通信',
      '100%完成',
      'FastAPI 做后端',
      'デプロイ',
      'カタカナ',
      '明日',
      '데이터',
      '백업',
    ]) {
      const hits = await store.search(query, { userId: 'alice' })
      expect(hits.length, query).toBeGreaterThan(0)
      expect(hits[0]?.snippet, query).toContain('«')
    }
  })

  it('never returns another user’s messages to a user-scoped search (security)', async () => {
    for (const query of ['database', 'password', '后端', 'bob', 'private rotation plan', '秘密']) {
      // Unscoped, each query finds Bob's messages: the scoped search has something to leave out.
      const everyone = await store.search(query, { limit: 50 })
      expect(
        everyone.some((h) => h.sessionId === ids.bob),
        query,
      ).toBe(true)
      const hits = await store.search(query, { userId: 'alice', limit: 50 })
      expect(hits.map((h) => h.messageId)).toEqual(
        everyone.filter((h) => h.sessionId === ids.alice || h.sessionId === ids.cron).map((h) => h.messageId),
      )
    }
    expect(await store.search('password', { userId: 'alice' })).toEqual([])
    expect((await store.search('password', { userId: 'bob' })).map((h) => h.sessionId)).toEqual([ids.bob])
    expect(await store.search('password', { userId: 'nobody' })).toEqual([])
  })

  it('ranks messages matching more of a natural-language question first', async () => {
    const hits = await store.search('what did we decide about the database migration?', { userId: 'alice' })
    expect(hits.length).toBeGreaterThanOrEqual(3)
    const top = hits.slice(0, 2).map((h) => h.snippet)
    expect(top.every((s) => /migration/.test(s))).toBe(true)
    expect(hits.some((h) => /vacuum/.test(h.snippet))).toBe(true)
  })

  it('finds a turn two messages from each of two that hold the question’s words (windows of five)', async () => {
    const trip = await store.createSession({ source: 'chat', userId: 'carol' })
    const elsewhere = await store.createSession({ source: 'chat', userId: 'carol' })
    const [, , best] = await store.appendMessages(trip.id, [
      { role: 'user', name: 'Carol', content: 'We finally went kayaking on Saturday.', timestamp: 10_000 },
      { role: 'assistant', name: 'Dan', content: 'Oh nice, how was it?', timestamp: 10_001 },
      {
        role: 'user',
        name: 'Carol',
        content: 'Honestly the best weekend I have had all year.',
        timestamp: 10_002,
      },
      { role: 'assistant', name: 'Dan', content: 'I am so glad.', timestamp: 10_003 },
      { role: 'user', name: 'Carol', content: 'The reservoir was freezing though.', timestamp: 10_004 },
    ])
    await store.appendMessages(elsewhere.id, [
      { role: 'user', name: 'Carol', content: 'Kayaking lessons start in June.', timestamp: 20_000 },
      { role: 'assistant', name: 'Dan', content: 'Good luck with it.', timestamp: 20_001 },
      {
        role: 'user',
        name: 'Carol',
        content: 'The reservoir road is closed for repairs.',
        timestamp: 20_002,
      },
    ])
    const hits = await store.search('How was the kayaking trip on the reservoir?', { userId: 'carol' })
    // the message between them matches no word, and is neither's neighbour: only its window finds it
    expect(hits.map((h) => h.messageId)).toContain(best?.id)
    expect(hits.every((h) => h.sessionId === trip.id || h.sessionId === elsewhere.id)).toBe(true)
  })

  it('matches identifiers, tool names and tool-call arguments', async () => {
    expect((await store.search('my-app.config.ts')).length).toBe(1)
    expect((await store.search('chat-send')).map((h) => h.role)).toEqual(['assistant'])
    expect((await store.search('decid*')).length).toBe(2)
  })

  it('matches a prefix that no stem of the word can match (a prefix term is a prefix on every engine)', async () => {
    // "authen" is no stem of authentication / authenticated / authenticator (the stems are authent…), so
    // only a prefix match finds these: an engine whose prefix term fell back to a word would find none
    const s = await store.createSession({ source: 'cli', userId: 'prefix-user' })
    const stored = await store.appendMessages(s.id, [
      { role: 'user', content: 'The authentication tokens rotate hourly.' },
      { role: 'assistant', content: 'Every authenticated request carries one.' },
      { role: 'user', content: 'The authenticator app is on my phone.' },
      { role: 'assistant', content: 'Nothing about that here.' },
    ])
    const scope = { userId: 'prefix-user' }
    const found = (hits: readonly SearchHit[]) =>
      hits.map((hit) => (hit.kind === 'message' ? hit.messageId : -1)).sort((a, b) => a - b)
    expect(found(await store.search('authen*', scope))).toEqual(stored.slice(0, 3).map((m) => m.id))
    expect(await store.search('authen', scope)).toEqual([])
    expect(found((await store.searchPage('authen*', { ...scope, sort: 'newest' })).items)).toEqual(
      stored.slice(0, 3).map((m) => m.id),
    )
  })

  it.skipIf(!h.capabilities.stemming)('stems English words (stemming)', async () => {
    expect((await store.search('deciding')).length).toBe(2)
    const s = await store.createSession({ source: 'cli', userId: 'dora' })
    await store.appendMessage(s.id, {
      role: 'user',
      content: 'She was running the deployments for happiness',
    })
    // not 'deploy': porter stems it to deploi (it ends in y), and deployments to deploy
    for (const query of ['runs', 'deployment', 'happy', 'RUN']) {
      expect((await store.search(query, { userId: 'dora' })).length, query).toBe(1)
    }
  })

  it.skipIf(!h.capabilities.foldsDiacritics)('folds case and diacritics (foldsDiacritics)', async () => {
    const s = await store.createSession({ source: 'cli', userId: 'fern' })
    await store.appendMessage(s.id, { role: 'user', content: 'Crème brûlée at the Café Zoë, naïve résumé' })
    for (const query of ['creme brulee', 'CAFÉ', 'cafe', 'zoe', 'NAIVE', 'resume']) {
      expect((await store.search(query, { userId: 'fern' })).length, query).toBe(1)
    }
  })

  it('applies filters in SQL so limit counts filtered hits', async () => {
    const bySource = await store.search('database', { source: 'cron' })
    expect(bySource.map((h) => h.sessionId)).toEqual([ids.cron])
    const excluded = await store.search('database', { excludeSources: ['cron', 'telegram'] })
    expect(excluded.length).toBe(2)
    expect(excluded.every((h) => h.sessionId === ids.alice)).toBe(true)
    const users = await store.search('database', { role: 'user' })
    expect(users.length).toBeGreaterThanOrEqual(2)
    expect(users.every((h) => h.role === 'user')).toBe(true)
    expect((await store.search('database')).some((h) => h.role !== 'user')).toBe(true)
    expect((await store.search('database', { sessionId: ids.bob })).length).toBe(1)
    const window = await store.search('database', { since: 1500, until: 2500 })
    expect(window.map((h) => h.timestamp).sort()).toEqual([1500, 2000])
    const limited = await store.search('database', { userId: 'alice', limit: 1 })
    expect(limited.length).toBe(1)
    const paged = await store.search('database', { userId: 'alice', limit: 1, offset: 1 })
    expect(paged[0]?.messageId).not.toBe(limited[0]?.messageId)
  })

  it('leaves out a compression chain in one query: the session, its ancestors and its descendants', async () => {
    const session = (parentSessionId?: string, userId = 'carol') =>
      store.createSession({ source: 'cli', userId, ...(parentSessionId ? { parentSessionId } : {}) })
    const root = await session()
    const current = await session(root.id)
    const tip = await session(current.id)
    const sibling = await session(root.id)
    const other = await session()
    const all = [root, current, tip, sibling, other]
    for (const s of all) await store.appendMessage(s.id, { role: 'user', content: `lineage marmot ${s.id}` })
    const sessionsOf = (hits: { sessionId: string }[]) => new Set(hits.map((h) => h.sessionId))
    expect(sessionsOf(await store.search('marmot', { limit: 20 }))).toEqual(new Set(all.map((s) => s.id)))
    const visible = await store.search('marmot', { limit: 20, excludeLineageOf: current.id })
    expect(sessionsOf(visible)).toEqual(new Set([sibling.id, other.id]))
    // the same exclusion on every path (questions, time order); an unknown id hides nothing else
    const question = await store.search('what about the lineage marmot?', { excludeLineageOf: tip.id })
    expect(question.length).toBeGreaterThan(0)
    for (const hit of question) expect([root.id, current.id, tip.id]).not.toContain(hit.sessionId)
    const newest = await store.search('marmot', { sort: 'newest', limit: 20, excludeLineageOf: root.id })
    expect(sessionsOf(newest)).toEqual(new Set([other.id]))
    const unknown = await store.search('marmot', { limit: 20, excludeLineageOf: 'no-such-session' })
    expect(unknown.length).toBe(all.length)
  })

  it('sorts by time when asked', async () => {
    const newest = await store.search('database', { sort: 'newest' })
    expect(new Set(newest.map((h) => h.timestamp)).size).toBeGreaterThanOrEqual(3)
    expect(newest.map((h) => h.timestamp)).toEqual([...newest.map((h) => h.timestamp)].sort((a, b) => b - a))
    const oldest = await store.search('database', { sort: 'oldest' })
    expect(oldest.map((h) => h.timestamp)).toEqual([...newest.map((h) => h.timestamp)].reverse())
    // Relevance order is not time order here, so each sort had something to do.
    const ranked = (await store.search('database')).map((h) => h.timestamp)
    expect(ranked).not.toEqual(oldest.map((h) => h.timestamp))
    expect(ranked).not.toEqual(newest.map((h) => h.timestamp))
  })

  it('turns any text into a valid query', async () => {
    for (const query of [
      'C++',
      '"unterminated',
      '(problem',
      'hello AND',
      '***',
      '{test}',
      'OR hello',
      'a AND OR b',
      'col:term',
      '"'.repeat(100_000),
    ]) {
      const hits = await store.search(query)
      expect(Array.isArray(hits), query.slice(0, 20)).toBe(true)
      expect(
        hits.every((h) => typeof h.snippet === 'string' && h.sessionId !== ''),
        query.slice(0, 20),
      ).toBe(true)
    }
    // Operator words and syntax are searched as text: each of these finds the message holding them.
    const s = await store.createSession({ source: 'cli', userId: 'syntax' })
    await store.appendMessage(s.id, { role: 'user', content: 'hello C++ {test} col:term problem' })
    for (const query of ['C++', '(problem', 'hello AND', '{test}', 'OR hello', 'col:term']) {
      expect((await store.search(query, { userId: 'syntax' })).length, query).toBe(1)
    }
    expect(await store.search('')).toEqual([])
    await expect(store.search('x', { sort: 'random' as never })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    })
    await expect(store.search('x', { limit: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await store.search('   \n\t')).toEqual([])
  })

  it('ranks multi-word searches over common words by tiers: rare terms, then all common terms, then any', async () => {
    const s = await store.createSession({ source: 'cli', userId: 'erin' })
    const filler = COMMON_TERM_MESSAGES + 100
    await store.appendMessages(s.id, [
      ...Array.from({ length: filler }, (_, i) => ({
        role: 'user' as const,
        content: `routine database check ${i}`,
      })),
      ...Array.from({ length: filler }, (_, i) => ({
        role: 'user' as const,
        content: `routine report ${i}`,
      })),
      { role: 'assistant', content: 'the zebra crossing incident' },
    ])
    const hits = await store.search('zebra database routine', { userId: 'erin', limit: 5 })
    expect(hits.map((h) => h.snippet)).toEqual([
      expect.stringContaining('«zebra»'),
      ...Array(4).fill(expect.stringMatching(/«routine» «database»/)),
    ])
    // A rare word alone is just as quick to find, and a common word alone still fills the page.
    expect((await store.search('zebra', { userId: 'erin' })).length).toBe(1)
    expect((await store.search('report routine', { userId: 'erin', limit: 20 })).length).toBe(20)
  })

  describe('episodes', () => {
    it('returns summaries first and counts their hits', async () => {
      const episode = await store.addEpisode({
        sessionId: ids.alice,
        summary: 'Summary: the database migration runs on Friday; 后端 uses FastAPI.',
        importance: 8,
        tokenCount: 20,
        firstMessageId: 1,
        lastMessageId: 2,
      })
      expect(episode).toMatchObject({ hitCount: 0, lastHitAt: null, importance: 8 })
      const hits = await store.search('database migration', { userId: 'alice' })
      expect(hits[0]).toMatchObject({ kind: 'episode', episodeId: episode.id, sessionId: ids.alice })
      expect(hits.slice(1).every((h) => h.kind === 'message')).toBe(true)
      expect((await store.search('后端', { userId: 'alice' }))[0]?.kind).toBe('episode')
      expect((await store.search('database', { userId: 'bob' })).some((h) => h.kind === 'episode')).toBe(
        false,
      )
      expect((await store.search('database', { includeEpisodes: false }))[0]?.kind).toBe('message')
      const [after] = await store.getEpisodes(ids.alice)
      expect(after?.hitCount).toBe(2)
      expect(after?.lastHitAt).toEqual(expect.any(Number))
    })

    it('evicts low-importance, long-unused episodes first', async () => {
      const s = await store.createSession({ source: 'cli', userId: 'carol' })
      const episode = (summary: string, importance: number) =>
        store.addEpisode({ sessionId: s.id, summary, importance, tokenCount: 100 })
      const low = await episode('low importance note', 1)
      const midUnused = await episode('mid unused', 5)
      const midUsed = await episode('mid used', 5)
      const high = await episode('high importance note', 9)
      expect((await store.getEpisodes(s.id)).map((e) => e.id)).toEqual([
        low.id,
        midUnused.id,
        midUsed.id,
        high.id,
      ])
      await new Promise((r) => setTimeout(r, 5))
      expect((await store.search('used', { userId: 'carol' })).map((h) => h.episodeId)).toEqual([midUsed.id])
      const total = (await store.getEpisodes(ids.alice)).length + 4
      expect(await store.pruneEpisodes({ maxCount: total - 1 })).toBe(1)
      let left = (await store.getEpisodes(s.id)).map((e) => e.id)
      expect(left).toEqual([midUnused.id, midUsed.id, high.id])
      await store.pruneEpisodes({ maxTokens: 20 + 200 })
      left = (await store.getEpisodes(s.id)).map((e) => e.id)
      expect(left).toEqual([midUsed.id, high.id])
    })
  })

  it('reads the messages around a message with bounded indexed reads', async () => {
    const path = h.path()
    const around = await h.open(path)
    try {
      const a = await around.createSession({ source: 'cli' })
      const b = await around.createSession({ source: 'cli' })
      // the two sessions' rows interleave, so a read by id range alone would mix them
      const ids: number[] = []
      for (let i = 0; i < 400; i++) {
        const [row] = await around.appendMessages(i % 2 ? b.id : a.id, [
          { role: 'user', content: `turn ${i}` },
        ])
        if (i % 2 === 0) ids.push(row?.id as number)
      }
      const read = async (id: number, options?: { before?: number; after?: number }) =>
        (await around.readAround(id, options)).map((m) => m.id)
      expect(await read(ids[100] as number, { before: 2, after: 3 })).toEqual(ids.slice(98, 104))
      expect(await read(ids[100] as number)).toEqual(ids.slice(98, 103))
      expect(await read(ids[0] as number, { before: 5, after: 1 })).toEqual(ids.slice(0, 2))
      expect(await read(ids.at(-1) as number, { before: 1, after: 5 })).toEqual(ids.slice(-2))
      expect(await read(ids[7] as number, { before: 0, after: 0 })).toEqual([ids[7]])
      expect((await around.readAround(ids[3] as number))[1]?.content).toBe('turn 4')
      expect(await around.readAround(10_000_000)).toEqual([])
      await expect(around.readAround(ids[3] as number, { before: 101 })).rejects.toThrow(/before must be/)
      await expect(around.readAround(-1)).rejects.toThrow(/messageId/)
      // the rows read are those returned: every part of the query is an index range with its LIMIT
      if (!h.capabilities.sqliteFile) return
      const db = new Database(path, { readonly: true })
      try {
        const plan = db
          .prepare(
            `EXPLAIN QUERY PLAN WITH hit AS (SELECT id, session_id FROM messages WHERE id = 1)
            SELECT m.id FROM hit JOIN messages m ON m.session_id = hit.session_id AND m.id < hit.id ORDER BY m.id DESC LIMIT 2`,
          )
          .all() as { detail: string }[]
        expect(plan.map((p) => p.detail).join('\n')).toMatch(
          /SEARCH m USING (COVERING )?INDEX messages_session_idx \(session_id=\? AND rowid<\?\)/,
        )
      } finally {
        db.close()
      }
    } finally {
      await around.close()
    }
  })

  describe('the agent’s own retrieval traffic and questions', () => {
    let echo: Store
    const sessions: string[] = []
    const search = (words: string) => ({
      id: `c${sessions.length}`,
      type: 'function' as const,
      function: { name: 'session_search', arguments: JSON.stringify({ query: words }) },
    })

    beforeAll(async () => {
      echo = await h.open()
      const said = await echo.createSession({ source: 'cli', userId: 'erin' })
      await echo.appendMessages(said.id, [
        { role: 'user', content: '昨天我们决定把发布窗口改到周四下午。' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'We moved the release window to Thursday afternoon.' },
        { role: 'assistant', content: 'Noted.' },
      ])
      sessions.push(said.id)
      // three later sessions that ask, search, fail and report the failure: each echoes the words
      for (let i = 0; i < 3; i++) {
        const asked = await echo.createSession({ source: 'cli', userId: 'erin' })
        for (const [question, words] of [
          ['上次说的发布窗口是什么时候？', '发布窗口 时候'],
          ['When is the release window?', 'release window'],
        ] as const) {
          const call = search(words)
          await echo.appendMessages(asked.id, [
            { role: 'user', content: question },
            { role: 'assistant', content: null, tool_calls: [call], retrieval: true },
            {
              role: 'tool',
              tool_call_id: call.id,
              content: `No past session matches "${words}". 5 results for "${words}"`,
              retrieval: true,
            },
            {
              role: 'assistant',
              content: `I found nothing about "${words}" in past conversations.`,
              retrieval: true,
            },
          ])
        }
        sessions.push(asked.id)
      }
    })
    afterAll(() => echo.close())

    const texts = async (query: string, options: Parameters<Store['search']>[1] = {}) =>
      (await echo.search(query, { limit: 50, ...options })).map((hit) => hit.snippet.replace(/[«»]/g, ''))

    it('leaves it out of search by default, on every path, and keeps the fact first', async () => {
      for (const userId of [undefined, 'erin']) {
        for (const [query, fact] of [
          ['发布窗口', '发布窗口改到周四下午'],
          ['发布窗口 时候', '发布窗口改到周四下午'],
          ['上次说的发布窗口是什么时候？', '发布窗口改到周四下午'],
          ['release window', 'release window to Thursday'],
          ['When is the release window?', 'release window to Thursday'],
        ] as const) {
          const shown = await texts(query, { userId })
          expect(shown[0], `${query} ${userId}`).toContain(fact)
          expect(shown.join('\n'), query).not.toMatch(/found nothing|No past session|session_search/)
        }
      }
      // scoped by session (a planned statement on PostgreSQL) and in time order: left out too
      const newest = await texts('release window', { sort: 'newest', sessionId: sessions[1] })
      expect(newest).toEqual(['When is the release window?'])
    })

    it('finds it when the search includes it, and keeps it stored and exported as written', async () => {
      const shown = await texts('release window', { includeRetrieval: true })
      expect(shown.join('\n')).toMatch(/found nothing about "release window"/)
      expect(shown.join('\n')).toMatch(/No past session matches/)
      const stored = await echo.getStoredMessages(sessions[1] as string)
      expect(stored.map((m) => m.retrieval ?? false)).toEqual([
        ...[false, true, true, true],
        ...[false, true, true, true],
      ])
      const exported = await echo.exportSession(sessions[1] as string)
      expect(exported?.messages.filter((m) => m.retrieval).length).toBe(6)
      expect(JSON.parse(JSON.stringify(exported?.messages[1])).retrieval).toBe(true)
    })

    it('ranks a question below a statement of the same words, and first when nothing else matches', async () => {
      // the questions hold every word of these queries; the statements only some
      for (const query of ['release window when', '发布窗口 什么 时候']) {
        const shown = await texts(query)
        const firstQuestion = shown.findIndex((t) => /[?？]$/.test(t))
        const lastStatement = shown.findLastIndex((t) => !/[?？]$/.test(t))
        expect(firstQuestion, query).toBeGreaterThan(lastStatement)
      }
      expect(await texts('上次')).toEqual(Array(3).fill('上次说的发布窗口是什么时候？'))
    })

    it('rejects a retrieval mark that is not a boolean, naming the field', async () => {
      await expect(
        echo.appendMessage(sessions[0] as string, {
          role: 'user',
          content: 'x',
          retrieval: 'yes' as unknown as boolean,
        }),
      ).rejects.toThrow(/retrieval must be true or false/)
    })
  })

  describe.skipIf(!h.capabilities.sqliteFile)(
    'messages of megabytes (sqliteFile: timed against FTS5 alone)',
    () => {
      const MB = 1024 * 1024
      const filler = 'lorem ipsum dolor 数据库 '
      const big = (bytes: number, tag: string) => `${tag} ${filler.repeat(Math.ceil(bytes / filler.length))}`
      const path = h.path()
      let large: Store

      beforeAll(async () => {
        large = await h.open(path)
        const s = await large.createSession({ source: 'cli', userId: 'dora' })
        await large.appendMessages(s.id, [
          { role: 'user', content: 'the normal question about lorem and the ops rota' },
          { role: 'assistant', content: 'a normal answer: the ops rota is on the wiki' },
        ])
        for (const [bytes, tag] of [
          [1 * MB, 'one'],
          [3 * MB, 'three'],
          [10 * MB, 'ten'],
        ] as const) {
          await large.appendMessage(s.id, { role: 'tool', tool_call_id: tag, content: big(bytes, tag) })
        }
      }, 600_000)
      afterAll(() => large.close())

      const timed = async (query: string) => {
        const start = performance.now()
        const hits = await large.search(query)
        return { hits, ms: performance.now() - start }
      }
      // What finding and ranking the same rows costs in SQLite alone, without snippets: the floor.
      const rankOnly = (query: string) => {
        const db = new Database(path, { readonly: true })
        try {
          const statement = db.prepare(
            'SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 10',
          )
          const start = performance.now()
          statement.all(toMatchQuery(query))
          return performance.now() - start
        } finally {
          db.close()
        }
      }

      it('answers searches matching them with bounded work and highlighted snippets', async () => {
        const normal = (await Promise.all([1, 2, 3].map(() => timed('rota')))).map((r) => r.ms)
        const floor = Math.min(...normal)
        for (const query of ['lorem', 'ipsum dolor', '数据库', 'ten']) {
          const { hits, ms } = await timed(query)
          const ranking = rankOnly(query)
          console.log(
            `[bench ${driver}] search "${query}" over 1+3+10 MB messages: ${ms.toFixed(1)} ms = ${(ms / ranking).toFixed(1)}× ranking them alone (${ranking.toFixed(1)} ms), ${(ms / floor).toFixed(0)}× a search of short messages (${floor.toFixed(2)} ms)`,
          )
          expect(hits.length, query).toBeGreaterThan(0)
          // The timings above are printed, not asserted (the machine may be busy): what is asserted is that
          // the JS work is bounded by the snippet slices, not by the 14 MB the rows hold.
          const work = await countWorkAsync(() => large.search(query))
          expect(work, query).toBeLessThan(MB / 8)
          for (const hit of hits) {
            expect(hit.snippet.length, query).toBeLessThan(500)
            expect(hit.snippet, query).not.toContain('\u200b')
          }
          const highlighted = query === 'ipsum dolor' ? '«ipsum» «dolor»' : `«${query}»`
          expect(hits[0]?.snippet, query).toContain(highlighted)
        }
        expect((await large.search('lorem')).map((h) => h.role)).toContain('tool')
      })

      it('snippets a long row around its first match, ending in an ellipsis', async () => {
        const [hit] = await large.search('three')
        expect(hit?.snippet).toMatch(/^«three» lorem ipsum dolor 数据库 lorem ipsum .*…$/)
      })
    },
  )
}
