/**
 * The evaluation harness's entry into the store (eval/, bench/ and the ranking tests import this file by
 * path; the package does not export it and its README does not document it): a search with single
 * ranking techniques turned off (search/rank.ts), which `store.search` always runs all of.
 */
import { ALL_RANK_FEATURES, type RankFeatures } from '../search/rank.ts'
import type { SearchHit, SearchOptions } from '../types.ts'
import { search } from './search.ts'
import { contextOf, type Store } from './store.ts'

/** `store.search(query, options)` with the techniques `ranking` sets to false turned off. */
export function searchWithRanking(
  store: Store,
  query: string,
  options: SearchOptions,
  ranking: Partial<RankFeatures>,
): Promise<SearchHit[]> {
  const ctx = contextOf(store)
  return ctx.operation(() => search(ctx, query, options, { ...ALL_RANK_FEATURES, ...ranking }))
}
