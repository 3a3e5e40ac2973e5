/**
 * Running a search's halves in the store's dialect, and the tiers of a multi-word search. Apart from
 * search-sql.ts so that the PostgreSQL dialect can share that leaf without an import cycle.
 */
import { isPlainSearch, pgHitQuery, pgKeywordHits, pgSearchQuery } from '../dialects/postgres/search.ts'
import type { Statement } from '../driver.ts'
import { joinTerms, type SearchTerm } from '../search/query.ts'
import type { SearchOptions } from '../types.ts'
import type { StoreContext } from './context.ts'
import { messageTiers, type TermTier } from './message-tiers.ts'
import { recencyRanked } from './recency-tiers.ts'
import { type After, type HitRow, hitQuery } from './search-sql.ts'

/** One half of a search in the store's dialect: FTS5 on SQLite, tsvector on PostgreSQL. */
export const hitStatement = (ctx: StoreContext, ...query: Parameters<typeof hitQuery>): Statement =>
  ctx.dialect === 'postgres' ? pgHitQuery(...query) : hitQuery(...query)

/**
 * Matching message rows for a search: by term tiers for relevance (see message-tiers.ts), each ranked by
 * recency tiers on SQLite (recency-tiers.ts), the plain OR otherwise; `take` rows per tier until `take`
 * are found.
 */
export async function tieredRows(
  ctx: StoreContext,
  terms: readonly SearchTerm[],
  options: SearchOptions,
  take: number,
  after?: After,
): Promise<HitRow[]> {
  if ((options.sort ?? 'relevance') !== 'relevance') {
    return ctx.read<HitRow>(
      hitStatement(ctx, 'message', joinTerms(terms, 'OR'), options, take, after),
      'Searching messages',
    )
  }
  return gather(await messageTiers(ctx, terms), take, (tier) =>
    ctx.dialect === 'postgres'
      ? ctx.read<HitRow>(hitStatement(ctx, 'message', tier.match, options, take), 'Searching messages')
      : recencyRanked(ctx, tier.terms, tier.match, options, take),
  )
}

/** The rows of the tiers in order, each item once, reading tier after tier until `take` are found. */
async function gather(
  tiers: readonly TermTier[],
  take: number,
  read: (tier: TermTier, index: number) => Promise<HitRow[]>,
): Promise<HitRow[]> {
  const rows: HitRow[] = []
  const seen = new Set<number>()
  for (const [index, tier] of tiers.entries()) {
    for (const row of await read(tier, index)) {
      if (!seen.has(row.item_id)) {
        seen.add(row.item_id)
        rows.push(row)
      }
    }
    if (rows.length >= take) break
  }
  return rows
}

/**
 * The episode and message rows of a keyword search on PostgreSQL: what findHits reads on SQLite as the
 * episodes half and then tieredRows, with the episodes half (when `withEpisodes`) run in one statement
 * with the first message tier, so a one-word search is one round trip. A later tier, read only when the
 * first falls short, is a statement of its own, as in tieredRows. A plain search (isPlainSearch: the
 * usual one, relevance and at most a user) calls engram_keyword_hits, planned once per connection; the
 * others run planned statements (pgSearchQuery, pgHitQuery).
 */
export async function pgKeywordRows(
  ctx: StoreContext,
  terms: readonly SearchTerm[],
  options: SearchOptions,
  take: number,
  withEpisodes: boolean,
  after?: After,
): Promise<{ episodes: HitRow[]; messages: HitRow[] }> {
  const match = joinTerms(terms, 'OR')
  // time order pages by keyset over the plain OR; relevance (never paged by keyset) ranks by tiers
  const relevance = (options.sort ?? 'relevance') === 'relevance'
  // one term is its own only tier (messageTiers would say so after an await)
  const tiers = relevance && terms.length > 1 ? await messageTiers(ctx, terms) : [{ terms, match }]
  const plain = isPlainSearch(options, after)
  let episodes: HitRow[] = []
  const messages = await gather(tiers, take, async (tier, index) => {
    const first = index === 0 && withEpisodes
    if (!first && !plain) {
      return ctx.read<HitRow>(pgHitQuery('message', tier.match, options, take, after), 'Searching messages')
    }
    const rows = await ctx.read<HitRow & { kind: 'episode' | 'message' }>(
      plain
        ? pgKeywordHits(first ? match : null, tier.match, options.userId, take)
        : pgSearchQuery(match, tier.match, options, take, after),
      'Searching',
    )
    if (first) episodes = rows.filter((row) => row.kind === 'episode')
    return rows.filter((row) => row.kind === 'message')
  })
  return { episodes, messages }
}
