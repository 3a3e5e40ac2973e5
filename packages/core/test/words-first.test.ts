import { describe, expect, it } from 'vitest'
import type { Statement, StorageDriver } from '../src/driver.ts'
import { betterSqlite3Driver } from '../src/drivers/better-sqlite3.ts'
import { openStoreWithDriver } from '../src/index.ts'
import { parseSearchQuery, type SearchTerm } from '../src/search/query.ts'
import { COMMON_TERM_MESSAGES, gatherTiers, relevanceTiers, type TermTier } from '../src/search/tiers.ts'
import { tempDbPath, tempDir, watchedDriver } from './helpers.ts'

// A keyword search ranks the words as written first (search/tiers.ts, primaryFirst): a CJK word's pairs and
// parts join only when the word alone falls short.

const texts = (tier: TermTier) => `${tier.operator}: ${tier.terms.map((t) => t.text).join(' ')}`

describe('relevanceTiers with the words as written first', () => {
  const terms = parseSearchQuery('数据迁移')
  const asked: string[][] = []
  const count = async (list: readonly SearchTerm[]) => {
    asked.push(list.map((t) => t.text))
    return list.map(() => 1)
  }

  it('yields the word alone, then every term; counts only when a tier of several terms is read', async () => {
    expect(terms.filter((t) => t.primary).map((t) => t.text)).toEqual(['数据迁移'])
    const tiers = relevanceTiers(terms, count, true)
    const first = await tiers.next()
    expect(first.value && texts(first.value)).toBe('OR: 数据迁移')
    expect(asked).toEqual([])
    const rest: string[] = []
    for await (const tier of tiers) rest.push(texts(tier))
    expect(rest).toEqual([`OR: ${terms.map((t) => t.text).join(' ')}`])
    expect(asked).toEqual([terms.map((t) => t.text)])
  })

  it('asks each term’s count once, the words as written among them', async () => {
    asked.length = 0
    const mixed = parseSearchQuery('数据迁移 rollback')
    const all: string[] = []
    for await (const tier of relevanceTiers(mixed, count, true)) all.push(texts(tier))
    expect(all).toEqual(['OR: 数据迁移 rollback', `OR: ${mixed.map((t) => t.text).join(' ')}`])
    expect(asked.flat().sort()).toEqual(mixed.map((t) => t.text).sort())
  })

  it('stops before the helper terms when the words fill the page', async () => {
    asked.length = 0
    const read = async (tier: TermTier) =>
      tier.terms.length === 1 ? [{ item_id: 1 }, { item_id: 2 }] : [{ item_id: 3 }]
    expect(await gatherTiers(relevanceTiers(terms, count, true), 2, read)).toEqual([
      { item_id: 1 },
      { item_id: 2 },
    ])
    expect(asked).toEqual([])
    expect(await gatherTiers(relevanceTiers(terms, count, true), 3, read)).toHaveLength(3)
  })

  it('without primaryFirst (a question) runs every term together, split by counts as before', async () => {
    const common = async (list: readonly SearchTerm[]) => list.map(() => COMMON_TERM_MESSAGES)
    const all: string[] = []
    for await (const tier of relevanceTiers(terms, common)) all.push(texts(tier))
    const every = terms.map((t) => t.text).join(' ')
    expect(all).toEqual([`AND: ${every}`, `OR: ${every}`])
  })
})

/** A better-sqlite3 driver that keeps the statements that read the message index. */
function recording(path: string): { driver: StorageDriver; seen: Statement[] } {
  const seen: Statement[] = []
  const driver = watchedDriver(betterSqlite3Driver({ path }), (statement) => {
    if (statement.sql.includes('messages_fts MATCH')) seen.push(statement)
  })
  return { seen, driver }
}

describe('a CJK keyword search on SQLite', () => {
  it('ranks only the messages holding the word when they fill the pool, and counts nothing', async () => {
    const { driver, seen } = recording(tempDbPath(tempDir()))
    const store = await openStoreWithDriver(driver)
    try {
      const session = await store.createSession({ source: 'cli' })
      await store.appendMessages(session.id, [
        // more than the pool a search reads (store/search.ts: STATEMENT_POOL, 20)
        ...Array.from({ length: 24 }, (_, i) => ({ role: 'user' as const, content: `第${i}次数据迁移完成` })),
        { role: 'assistant', content: '数据 数据 数据，迁移 迁移 迁移' },
      ])
      seen.length = 0
      const three = await store.search('数据迁移', { limit: 3 })
      expect(three.map((hit) => hit.snippet)).toEqual(Array(3).fill(expect.stringContaining('«数据迁移»')))
      const matches = seen.map((s) => JSON.stringify(s.params))
      expect(seen.filter((s) => s.sql.startsWith('SELECT count(*) AS n FROM (SELECT 1'))).toEqual([])
      expect(matches.every((m) => !m.includes('"数据" OR'))).toBe(true)

      // the parts still find the message that holds them apart, after the word
      const all = await store.search('数据迁移', { limit: 30 })
      expect(all).toHaveLength(25)
      expect(all[24]?.snippet).toContain('«数据» «数据»')
    } finally {
      await store.close()
    }
  })
})
