/** PostgreSQL's searches that take more than one statement: term counts, the term tiers, the keyword search. */
import type { SearchTerm } from '../../search/query.ts'
import { COMMON_TERM_MESSAGES, gatherTiers, relevanceTiers, type TermTier } from '../../search/tiers.ts'
import type { Dialect, DialectConnection, HitRow } from '../dialect.ts'
import { isPlainSearch, pgHitQuery, pgKeywordHits, pgSearchQuery, pgTermCounts } from './search.ts'

/** How many messages hold each term, each up to COMMON_TERM_MESSAGES, in one statement (a round trip costs what a count does). */
async function termCounts(db: DialectConnection, terms: readonly SearchTerm[]): Promise<number[]> {
  const [row] = await db.read<Record<string, number>>(
    pgTermCounts(terms, COMMON_TERM_MESSAGES),
    'Searching messages',
  )
  return terms.map((_, i) => Number(row?.[`n${i}`] ?? 0))
}

const tiersOf = (db: DialectConnection, terms: readonly SearchTerm[], primaryFirst = false) =>
  relevanceTiers(terms, (all) => termCounts(db, all), primaryFirst)

/** The best `take` messages by relevance: the term tiers (search/tiers.ts), each one ranked statement. */
export const rankedMessages: Dialect['rankedMessages'] = async (db, terms, options, take) =>
  gatherTiers(tiersOf(db, terms), take, (tier) =>
    db.read<HitRow>(pgHitQuery('message', tier, options, take), 'Searching messages'),
  )

/**
 * The episode and message rows of a keyword search: the episodes half (when `withEpisodes`) runs in one
 * statement with the first message tier, so a one-word search is one round trip (a round trip costs
 * about what a half does). A later tier, read only when the first falls short, is a statement of its own.
 * A plain search (isPlainSearch: the usual one, relevance and at most a user) calls engram_keyword_hits,
 * planned once per connection; the others run planned statements (pgSearchQuery, pgHitQuery).
 */
export const keywordRows: Dialect['keywordRows'] = async (db, terms, options, take, withEpisodes, after) => {
  const any: TermTier = { terms, operator: 'OR' }
  // time order pages by keyset over the plain OR; relevance (never paged by keyset) ranks by tiers, the
  // words as written first
  const tiers = (options.sort ?? 'relevance') === 'relevance' ? tiersOf(db, terms, true) : [any]
  const plain = isPlainSearch(options, after)
  let episodes: HitRow[] = []
  const messages = await gatherTiers(tiers, take, async (tier, index) => {
    const first = index === 0 && withEpisodes
    if (!first && !plain) {
      return db.read<HitRow>(pgHitQuery('message', tier, options, take, after), 'Searching messages')
    }
    const rows = await db.read<HitRow & { kind: 'episode' | 'message' }>(
      plain
        ? pgKeywordHits(first ? any : null, tier, options.userId, take)
        : pgSearchQuery(any, tier, options, take, after),
      'Searching',
    )
    if (first) episodes = rows.filter((row) => row.kind === 'episode')
    return rows.filter((row) => row.kind === 'message')
  })
  return { episodes, messages }
}
