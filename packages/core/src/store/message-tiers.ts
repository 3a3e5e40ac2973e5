import { pgTermCounts } from '../dialects/postgres/search.ts'
import { joinTerms, type SearchTerm } from '../search/query.ts'
import type { StoreContext } from './context.ts'

/** A term found in at least this many messages is common: ranking every message it is in would be slow. */
export const COMMON_TERM_MESSAGES = 2000

/** One MATCH expression of a search: its terms and the expression they make. */
export interface TermTier {
  terms: readonly SearchTerm[]
  match: string
}

const tierOf = (terms: readonly SearchTerm[], operator: 'AND' | 'OR'): TermTier => ({
  terms,
  match: joinTerms(terms, operator),
})

/**
 * How many messages hold each term, each counted up to COMMON_TERM_MESSAGES: on PostgreSQL in one
 * statement (a round trip costs there what a count does), on SQLite one in-process count per term.
 */
async function termCounts(ctx: StoreContext, terms: readonly SearchTerm[]): Promise<number[]> {
  if (ctx.dialect === 'postgres') {
    const [row] = await ctx.read<Record<string, number>>(
      pgTermCounts(
        terms.map((t) => t.fts),
        COMMON_TERM_MESSAGES,
      ),
      'Searching messages',
    )
    return terms.map((_, i) => Number(row?.[`n${i}`] ?? 0))
  }
  const counts: number[] = []
  for (const term of terms) {
    const [row] = await ctx.read<{ n: number }>(
      {
        sql: 'SELECT count(*) AS n FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)',
        params: [term.fts, COMMON_TERM_MESSAGES],
      },
      'Searching messages',
    )
    counts.push(row?.n ?? 0)
  }
  return counts
}

/**
 * The MATCH expressions a multi-term relevance search runs, in order, until it has enough hits.
 *
 * Ranking the OR of common words means scoring tens of thousands of messages (50–100 ms at 100k
 * messages), so the terms are split by how many messages hold them, counted up to
 * COMMON_TERM_MESSAGES (a capped count walks at most that many index entries and scores none):
 * first the messages with any rare term, then those with all the common terms, and only if both
 * together fall short the OR of the common terms. With no common term this is the plain OR.
 */
export async function messageTiers(ctx: StoreContext, terms: readonly SearchTerm[]): Promise<TermTier[]> {
  if (terms.length < 2) return [tierOf(terms, 'OR')]
  const counts = await termCounts(ctx, terms)
  const rare: SearchTerm[] = []
  const common: SearchTerm[] = []
  for (const [i, term] of terms.entries())
    ((counts[i] ?? 0) < COMMON_TERM_MESSAGES ? rare : common).push(term)
  const tiers: TermTier[] = []
  if (rare.length > 0) tiers.push(tierOf(rare, 'OR'))
  if (common.length > 1) tiers.push(tierOf(common, 'AND'))
  if (common.length > 0) tiers.push(tierOf(common, 'OR'))
  return tiers
}
