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

/** The tiers of `terms` split by how many messages hold each (`count`, not asked for one term). */
async function* tiersOf(
  terms: readonly SearchTerm[],
  count: (terms: readonly SearchTerm[]) => Promise<number[]>,
): AsyncGenerator<TermTier> {
  if (terms.length <= 1) {
    yield { terms, operator: 'OR' }
    return
  }
  const counts = await count(terms)
  const rare: SearchTerm[] = []
  const common: SearchTerm[] = []
  for (const [i, term] of terms.entries())
    ((counts[i] ?? 0) < COMMON_TERM_MESSAGES ? rare : common).push(term)
  if (rare.length > 0) yield { terms: rare, operator: 'OR' }
  if (common.length > 1) yield { terms: common, operator: 'AND' }
  if (common.length > 0) yield { terms: common, operator: 'OR' }
}

/**
 * The tiers a relevance search runs, in order, each made only when the search reads it. `count` is the
 * dialect's: how many messages hold each term, each counted up to COMMON_TERM_MESSAGES, asked at most once
 * per term.
 *
 * With `primaryFirst` (a keyword search), the words as written come first: a CJK word's pairs and parts, a
 * Korean stem (query.ts: helper terms) join only when the words alone fall short. 数据迁移 then ranks the
 * messages holding 数据迁移 alone, instead of every message holding 数据 or 迁移, and needs no count.
 */
export async function* relevanceTiers(
  terms: readonly SearchTerm[],
  count: (terms: readonly SearchTerm[]) => Promise<number[]>,
  primaryFirst = false,
): AsyncGenerator<TermTier> {
  const counted = new Map<SearchTerm, number>()
  const cachedCount = async (list: readonly SearchTerm[]) => {
    const missing = list.filter((term) => !counted.has(term))
    if (missing.length > 0) {
      const counts = await count(missing)
      missing.forEach((term, i) => {
        counted.set(term, counts[i] ?? 0)
      })
    }
    return list.map((term) => counted.get(term) ?? 0)
  }
  const primary = terms.filter((term) => term.primary)
  if (primaryFirst && primary.length > 0 && primary.length < terms.length)
    yield* tiersOf(primary, cachedCount)
  yield* tiersOf(terms, cachedCount)
}

/** The rows of the tiers in order, each item once, reading tier after tier until `take` are found. */
export async function gatherTiers<R extends { item_id: number }>(
  tiers: AsyncIterable<TermTier> | Iterable<TermTier>,
  take: number,
  read: (tier: TermTier, index: number) => Promise<R[]>,
): Promise<R[]> {
  const rows: R[] = []
  const seen = new Set<number>()
  let index = 0
  for await (const tier of tiers) {
    for (const row of await read(tier, index)) {
      if (!seen.has(row.item_id)) {
        seen.add(row.item_id)
        rows.push(row)
      }
    }
    index++
    if (rows.length >= take) break
  }
  return rows
}
