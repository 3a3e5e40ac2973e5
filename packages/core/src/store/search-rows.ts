/**
 * Running a search's halves in the store's dialect, and the tiers of a multi-word search. Apart from
 * search-sql.ts so that the PostgreSQL dialect can share that leaf without an import cycle.
 */
import { pgHitQuery } from '../dialects/postgres/search.ts'
import type { Statement } from '../driver.ts'
import { joinTerms, type SearchTerm } from '../search/query.ts'
import type { SearchOptions } from '../types.ts'
import type { StoreContext } from './context.ts'
import { messageTiers } from './message-tiers.ts'
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
  const rows: HitRow[] = []
  const seen = new Set<number>()
  for (const tier of await messageTiers(ctx, terms)) {
    const found =
      ctx.dialect === 'postgres'
        ? await ctx.read<HitRow>(
            hitStatement(ctx, 'message', tier.match, options, take),
            'Searching messages',
          )
        : await recencyRanked(ctx, tier.terms, tier.match, options, take)
    for (const row of found) {
      if (!seen.has(row.item_id)) {
        seen.add(row.item_id)
        rows.push(row)
      }
    }
    if (rows.length >= take) break
  }
  return rows
}
