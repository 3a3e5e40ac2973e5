import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TIER_DECAY, TIER_MATCHES } from '../src/dialects/sqlite/recency-tiers.ts'
import type { Statement, StorageDriver } from '../src/driver.ts'
import { betterSqlite3Driver } from '../src/drivers/better-sqlite3.ts'
import { type MessageInput, openStoreWithDriver, type SearchHit, type Store } from '../src/index.ts'
import { tempDbPath, tempDir, watchedDriver } from './helpers.ts'

// Recency tiers (src/dialects/sqlite/recency-tiers.ts), checked by counting the rows each search scores and by
// comparing its hits with the rule computed over every match.

const GROWTH = 4
const PER_SESSION = 512
const VOCAB = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'tempor', 'magna', 'aliqua', 'veniam', 'nostrud']

/** Deterministic messages, all holding "common" (some twice), of varied lengths so their bm25 varies. */
function messages(from: number, count: number): MessageInput[] {
  let seed = from * 7919 + 17
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + Math.floor(next() * 30) }, () => VOCAB[Math.floor(next() * 10)])
    if (next() < 0.1) words.splice(Math.floor(next() * words.length), 0, 'common')
    return { role: 'user', content: `common ${words.join(' ')}` }
  })
}

/** A better-sqlite3 driver that keeps the statements that score tiers (they call bm25). */
function recording(path: string): { driver: StorageDriver; scored: Statement[] } {
  const scored: Statement[] = []
  const driver = watchedDriver(betterSqlite3Driver({ path }), (statement) => {
    if (statement.sql.includes('bm25(')) scored.push(statement)
  })
  return { scored, driver }
}

describe('relevance search over many matches (recency tiers)', () => {
  const path = tempDbPath(tempDir())
  let store: Store
  let scored: Statement[]
  let raw: Database.Database
  let size = 0

  const grow = async (to: number) => {
    for (; size < to; size += PER_SESSION) {
      const session = await store.createSession({
        source: 'test',
        userId: (size / PER_SESSION) % 3 ? 'ann' : 'bob',
      })
      await store.appendMessages(session.id, messages(size, PER_SESSION))
    }
  }

  /** The rows the recorded tier statements scored: the matches in their rowid ranges that pass the filter. */
  /** The lowest rowid of the newest TIER_MATCHES matches (0 when fewer), as the newest tier finds it. */
  const newestFrom = (match: string) =>
    (
      raw
        .prepare(
          'SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?',
        )
        .get(match, TIER_MATCHES - 1) as { id: number } | undefined
    )?.id ?? 0

  const rowsScored = (userId?: string, word = 'common') =>
    scored.reduce((sum, { sql, params = [] }) => {
      // the newest tier's parameters start with the MATCH (it finds its own bound); an older tier's with
      // its bounds: from, the MATCH, to
      const newest = typeof params[0] === 'string'
      const from = newest ? newestFrom(params[0] as string) : (params[0] as number)
      const to = params[2] as number
      const bounded = sql.includes('rowid < ?')
      const row = raw
        .prepare(
          `SELECT count(*) AS n FROM messages_fts JOIN messages t ON t.id = messages_fts.rowid
             JOIN sessions s ON s.id = t.session_id
           WHERE messages_fts MATCH ? AND messages_fts.rowid >= ? ${bounded ? 'AND messages_fts.rowid < ?' : ''}
             ${userId === undefined ? '' : 'AND s.user_id = ?'}`,
        )
        .get(...[`"${word}"`, from, ...(bounded ? [to] : []), ...(userId === undefined ? [] : [userId])]) as {
        n: number
      }
      return sum + row.n
    }, 0)

  /** The rule over every match: bm25 × DECAY^tier, tiers counted from the newest match, best 20. */
  const expected = (userId?: string, match = '"common"') => {
    const all = raw
      .prepare(
        `SELECT messages_fts.rowid AS id, -bm25(messages_fts) AS score, s.user_id FROM messages_fts
           JOIN messages t ON t.id = messages_fts.rowid JOIN sessions s ON s.id = t.session_id
         WHERE messages_fts MATCH ? ORDER BY messages_fts.rowid DESC`,
      )
      .all(match) as { id: number; score: number; user_id: string }[]
    let tier = 0
    let end = TIER_MATCHES
    return all
      .map((row, i) => {
        while (i >= end) end += TIER_MATCHES * GROWTH ** ++tier
        return { ...row, score: row.score * TIER_DECAY ** tier }
      })
      .filter((row) => userId === undefined || row.user_id === userId)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 20)
  }

  const search = async (userId?: string, query = 'common') => {
    scored.length = 0
    const hits = await store.search(query, {
      limit: 20,
      includeEpisodes: false,
      ...(userId ? { userId } : {}),
    })
    return hits.map((hit: SearchHit) => (hit.kind === 'message' ? hit.messageId : -1))
  }

  beforeAll(async () => {
    const recorder = recording(path)
    scored = recorder.scored
    store = await openStoreWithDriver(recorder.driver)
    raw = new Database(path, { readonly: true })
  })
  afterAll(async () => {
    raw.close()
    await store.close()
  })

  it('scores rows by the tier, not by the corpus: three times the matches, the same rows scored', async () => {
    await grow(3 * TIER_MATCHES)
    const few = await search()
    const fewScored = rowsScored()
    expect(few).toEqual(expected().map((row) => row.id))
    await grow(9 * TIER_MATCHES)
    const many = await search()
    const manyScored = rowsScored()
    expect(many).toEqual(expected().map((row) => row.id))
    // every match holds "common": the corpus is its matches
    expect(fewScored).toBeGreaterThan(0)
    expect(manyScored).toBe(fewScored)
    expect(manyScored).toBeLessThanOrEqual(TIER_MATCHES * (1 + GROWTH))
    expect(manyScored * 4).toBeLessThan(size)
  })

  it('ranks two common words in one pass per tier, with the hits the rule gives over every match', async () => {
    // "common" and "lorem" are both in thousands of messages: their AND is the first tier list, with more
    // matches than a recency tier holds, ranked in one pass over the MATCH per tier
    const match = '"common" AND "lorem"'
    const all = (
      raw.prepare('SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?').get(match) as {
        n: number
      }
    ).n
    expect(all).toBeGreaterThan(2 * TIER_MATCHES)
    const hits = await search(undefined, 'common lorem')
    expect(hits).toEqual(expected(undefined, match).map((row) => row.id))
    const tiers = scored.filter((statement) => statement.params?.includes(match))
    expect(tiers.length).toBeGreaterThan(0)
    expect(tiers[0]?.sql.match(/ MATCH \?/g)).toHaveLength(1)
  })

  it('scores only the user’s rows in a user-scoped search, with the hits the rule gives', async () => {
    for (const userId of ['ann', 'bob']) {
      const hits = await search(userId)
      expect(hits).toEqual(expected(userId).map((row) => row.id))
      const theirs = rowsScored(userId)
      expect(theirs).toBeGreaterThan(0)
      expect(theirs).toBeLessThan(rowsScored())
      // the filter joins run before the sorter that calls bm25, so rows of other users are never scored
      const [statement] = scored
      const plan = raw
        .prepare(`EXPLAIN QUERY PLAN ${statement?.sql}`)
        .all(...(statement?.params ?? []))
        .map((row) => (row as { detail: string }).detail)
      const at = (pattern: RegExp) => plan.findIndex((detail) => pattern.test(detail))
      expect(at(/SCAN messages_fts VIRTUAL TABLE/)).toBeGreaterThanOrEqual(0)
      expect(at(/SEARCH s /)).toBeGreaterThan(at(/SCAN messages_fts/))
      expect(at(/TEMP B-TREE FOR ORDER BY/)).toBeGreaterThan(at(/SEARCH s /))
    }
  })

  it('ranks a word with fewer matches than a tier in one tier: its matches scored once', async () => {
    const session = await store.createSession({ source: 'test' })
    await store.appendMessages(
      session.id,
      ['a rare zebra', 'zebra zebra', 'no match here', 'the zebra of the plains'].map((content) => ({
        role: 'user' as const,
        content,
      })),
    )
    const snippets = async (query: string) => {
      scored.length = 0
      return (await store.search(query, { includeEpisodes: false })).map((hit) => hit.snippet)
    }
    expect(await snippets('zebra')).toEqual([
      '«zebra» «zebra»',
      'a rare «zebra»',
      'the «zebra» of the plains',
    ])
    expect(scored).toHaveLength(1)
    expect(rowsScored(undefined, 'zebra')).toBe(3)
    // one token: its matches walked to the tier's bound, then scored (two readings of the MATCH)
    expect(scored[0]?.sql.match(/ MATCH \?/g)).toHaveLength(2)
    // several tokens: one pass, the newest tier scoring its matches as it reads them, newest first, its
    // bound taken from them
    expect(await snippets('zebra plains')).toEqual([
      'the «zebra» of the «plains»',
      '«zebra» «zebra»',
      'a rare «zebra»',
    ])
    expect(scored).toHaveLength(1)
    expect(scored[0]?.sql.match(/ MATCH \?/g)).toHaveLength(1)
  })
})
