/**
 * The term tiers of a multi-term relevance search (pure: each dialect counts the terms and runs the tiers).
 *
 * Ranking the OR of common words means scoring tens of thousands of messages (50–100 ms at 100k
 * messages), so the terms are split by how many messages hold them, counted up to
 * COMMON_TERM_MESSAGES (a capped count walks at most that many index entries and scores none):
 * first the messages with any rare term, then those with all the common terms, and only if both
 * together fall short the OR of the common terms. With no common term this is the plain OR.
 */
import type { SearchTerm } from './query.ts'

/** A term found in at least this many messages is common: ranking every message it is in would be slow. */
export const COMMON_TERM_MESSAGES = 2000

/** One match of a search: its terms, any (OR) or all (AND) of them. */
export interface TermTier {
  terms: readonly SearchTerm[]
  operator: 'AND' | 'OR'
}

/**
 * The tiers a relevance search runs, in order. `count` is the dialect's: how many messages hold each term,
 * each counted up to COMMON_TERM_MESSAGES; it is not asked for one term (its own only tier).
 */
export async function relevanceTiers(
  terms: readonly SearchTerm[],
  count: (terms: readonly SearchTerm[]) => Promise<number[]>,
): Promise<TermTier[]> {
  if (terms.length <= 1) return [{ terms, operator: 'OR' }]
  const counts = await count(terms)
  const rare: SearchTerm[] = []
  const common: SearchTerm[] = []
  for (const [i, term] of terms.entries())
    ((counts[i] ?? 0) < COMMON_TERM_MESSAGES ? rare : common).push(term)
  const tiers: TermTier[] = []
  if (rare.length > 0) tiers.push({ terms: rare, operator: 'OR' })
  if (common.length > 1) tiers.push({ terms: common, operator: 'AND' })
  if (common.length > 0) tiers.push({ terms: common, operator: 'OR' })
  return tiers
}

/** The rows of the tiers in order, each item once, reading tier after tier until `take` are found. */
export async function gatherTiers<R extends { item_id: number }>(
  tiers: readonly TermTier[],
  take: number,
  read: (tier: TermTier, index: number) => Promise<R[]>,
): Promise<R[]> {
  const rows: R[] = []
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
