/** SQLite's searches: capped term counts, tiers ranked by recency tiers, the keyword search's halves, speakers. */
import type { SearchTerm } from '../../search/query.ts'
import { COMMON_TERM_MESSAGES, gatherTiers, relevanceTiers } from '../../search/tiers.ts'
import type { Dialect, DialectConnection, HitRow } from '../dialect.ts'
import { hitQuery } from './hits.ts'
import { ftsTerm } from './match.ts'
import { recencyRanked } from './recency-tiers.ts'

/** How many messages hold each term, each counted up to COMMON_TERM_MESSAGES: one in-process count per term. */
async function termCounts(db: DialectConnection, terms: readonly SearchTerm[]): Promise<number[]> {
  const counts: number[] = []
  for (const term of terms) {
    const [row] = await db.read<{ n: number }>(
      {
        sql: 'SELECT count(*) AS n FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)',
        params: [ftsTerm(term), COMMON_TERM_MESSAGES],
      },
      'Searching messages',
    )
    counts.push(row?.n ?? 0)
  }
  return counts
}

/** The best `take` messages by relevance: the term tiers (search/tiers.ts), each ranked by recency tiers. */
const ranked = (
  db: DialectConnection,
  terms: readonly SearchTerm[],
  options: Parameters<Dialect['rankedMessages']>[2],
  take: number,
  primaryFirst: boolean,
) =>
  gatherTiers(
    relevanceTiers(terms, (all) => termCounts(db, all), primaryFirst),
    take,
    (tier) => recencyRanked(db, tier, options, take),
  )

export const rankedMessages: Dialect['rankedMessages'] = (db, terms, options, take) =>
  ranked(db, terms, options, take, false)

/**
 * A keyword search's rows: each half is its own in-process query, episodes first; messages by relevance
 * (the words as written first: relevanceTiers) or, in time order, the plain OR paged by keyset.
 */
export const keywordRows: Dialect['keywordRows'] = async (db, terms, options, take, withEpisodes, after) => {
  const any = { terms, operator: 'OR' } as const
  const episodes = withEpisodes
    ? await db.read<HitRow>(hitQuery('episode', any, options, take, after), 'Searching episodes')
    : []
  const messages =
    (options.sort ?? 'relevance') === 'relevance'
      ? await ranked(db, terms, options, take, true)
      : await db.read<HitRow>(hitQuery('message', any, options, take, after), 'Searching messages')
  return { episodes, messages }
}

/**
 * Whether a message of this store (not a tool result) was written by `name` (the OpenAI `name` field).
 * One probe of the partial index on named messages (messages_name_idx, migration 0008).
 */
export async function isSpeaker(db: DialectConnection, name: string): Promise<boolean> {
  const rows = await db.read<{ n: number }>(
    {
      sql: "SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE name = ? AND role <> 'tool' LIMIT 1)",
      params: [name],
    },
    'Searching messages',
  )
  return (rows[0]?.n ?? 0) > 0
}
