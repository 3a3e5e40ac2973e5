import type { SqlValue, Statement } from '../../driver.ts'
import { SLICE_CHARS } from '../../search/excerpt.ts'
import { indexPhrase } from '../../search/index-phrase.ts'
import type { TermTier } from '../../search/tiers.ts'
import { hitParts } from '../../search-sql.ts'
import type { SearchOptions } from '../../types.ts'
import type { After, Dialect } from '../dialect.ts'
import { parserText, SEARCH_CONFIG } from './search-config.ts'

/**
 * Search on PostgreSQL: the same parsed terms as on SQLite (query.ts: each term's phrase, a prefix flag,
 * joined by one of OR / AND), matched against the rows' SEARCH_CONFIG tsvectors (stemmed English, whole
 * CJK words) through their GIN index and ranked by ts_rank_cd. A term becomes a tsquery through
 * PostgreSQL's own parser (phraseto_tsquery), the parser that made the vectors, so both split a term the
 * same way; the term's text is a bound parameter, so no user text is read as tsquery syntax.
 */

// A prefix term: its words as quoted tsquery lexemes, the last one a prefix (`deploy*` → 'deploy':*),
// split where parserText splits a row's text.
const prefixQuery = (text: string) =>
  text
    .split(/[\s/\u200b]+/)
    .filter(Boolean)
    .map((word) => `'${word.replace(/['\\]/g, '\\$&')}'`)
    .join(' <-> ')
    .concat(':*')

/** The tsquery of a match, as SQL over bound parameters. */
export function tsquery({ terms, operator }: TermTier): { sql: string; params: SqlValue[] } {
  if (terms.length === 0) return { sql: "''::tsquery", params: [] }
  const phrases = terms.map(indexPhrase)
  return {
    sql: `(${phrases
      .map((t) =>
        t.prefix
          ? `to_tsquery('${SEARCH_CONFIG}', ?)`
          : `phraseto_tsquery('${SEARCH_CONFIG}', ${parserText('?')})`,
      )
      .join(operator === 'AND' ? ' && ' : ' || ')})`,
    params: phrases.map((t) => (t.prefix ? prefixQuery(t.phrase) : t.phrase)),
  }
}

// Bare names: in either level they are the output columns (the outer one also joins a `timestamp` column).
const ORDER = {
  relevance: 'score DESC, item_id DESC',
  newest: 'timestamp DESC, item_id DESC',
  oldest: 'timestamp ASC, item_id ASC',
} as const

/**
 * One half of a search (messages or episodes) on PostgreSQL, in the row shape of SQLite's hitQuery. The
 * inner query ranks and cuts to `take`; only those rows are read again for their first SLICE_CHARS + 1
 * characters (the slice a snippet is made from, as on SQLite), so a term with many matches does not read
 * every match's text.
 */
export const pgHitQuery: Dialect['hits'] = (kind, match, options, take, after) => {
  const { table, time, filters, sort } = hitParts(kind, options, after)
  const query = tsquery(match)
  const text = kind === 'message' ? 'x.content' : 'x.summary'
  // The row's own copy of its user (see ownerId) besides the session's: the index condition, so the GIN
  // index over (user_id, search_vector) returns, and ts_rank_cd scores, only that user's rows.
  const owner =
    options.userId === undefined
      ? { sql: '', params: [] }
      : { sql: 'AND t.user_id = ?', params: [options.userId] }
  return {
    sql: `SELECT h.session_id, h.item_id, h.role, h.timestamp, h.source, h.score, NULL AS snippet,
        substr(coalesce(x.search_text, ${text}, ''), 1, ${SLICE_CHARS + 1}) AS excerpt
      FROM (SELECT t.session_id, t.id AS item_id, ${kind === 'message' ? 't.role' : "'episode'"} AS role,
          ${time} AS timestamp, s.source, ts_rank_cd(t.search_vector, ${query.sql}) AS score
        FROM ${table} t JOIN sessions s ON s.id = t.session_id
        WHERE t.search_vector @@ ${query.sql} ${owner.sql} ${filters.where.map((w) => `AND ${w}`).join(' ')}
        ORDER BY ${ORDER[sort]} LIMIT ?) h
      JOIN ${table} x ON x.id = h.item_id
      ORDER BY ${ORDER[sort]}`,
    params: [...query.params, ...query.params, ...owner.params, ...filters.params, take],
  }
}

/**
 * Counts the messages holding each term, each up to `cap` (the capped counts message-tiers.ts splits terms
 * by), in one statement: one round trip however many terms (column `n<i>` for term i).
 */
export function pgTermCounts(terms: TermTier['terms'], cap: number): Statement {
  const counts = terms.map((term) => ({ query: tsquery({ terms: [term], operator: 'OR' }) }))
  return {
    sql: `SELECT ${counts
      .map(
        ({ query }, i) =>
          `(SELECT count(*) FROM (SELECT 1 FROM messages WHERE search_vector @@ ${query.sql} LIMIT ?) hits) AS n${i}`,
      )
      .join(', ')}`,
    params: counts.flatMap(({ query }) => [...query.params, cap]),
  }
}

/**
 * Both halves of a keyword search as one statement: at a few thousand rows a round trip costs about what
 * a half does, so one statement instead of two is most of a search's time. Each half is pgHitQuery's
 * (same columns) over its own expression (the messages' can be one tier of the terms), marked with its
 * `kind`; the outer ORDER BY repeats the halves' own ('episode' sorts before 'message'), since UNION ALL
 * alone does not promise their order.
 */
export function pgSearchQuery(
  episodeMatch: TermTier,
  messageMatch: TermTier,
  options: SearchOptions,
  take: number,
  after?: After,
): Statement {
  const e = pgHitQuery('episode', episodeMatch, options, take, after)
  const m = pgHitQuery('message', messageMatch, options, take, after)
  return {
    sql: `WITH e AS (${e.sql}), m AS (${m.sql})
      SELECT 'episode' AS kind, e.* FROM e UNION ALL SELECT 'message' AS kind, m.* FROM m
      ORDER BY kind, ${ORDER[options.sort ?? 'relevance']}`,
    params: [...(e.params ?? []), ...(m.params ?? [])],
  }
}

/**
 * Whether a search is one engram_keyword_hits answers: ranked by relevance, from the start, scoped by
 * nothing but (optionally) its user, without the retrieval traffic (drizzle-pg 0007). The other filters and the time orders need plans that depend on
 * their values, so they stay planned statements (pgHitQuery, pgSearchQuery).
 */
export const isPlainSearch = (options: SearchOptions, after?: After) =>
  after === undefined &&
  (options.sort ?? 'relevance') === 'relevance' &&
  options.sessionId === undefined &&
  options.excludeLineageOf === undefined &&
  options.source === undefined &&
  options.excludeSources === undefined &&
  options.role === undefined &&
  options.since === undefined &&
  options.until === undefined &&
  options.includeRetrieval !== true

/**
 * A plain search's rows (see isPlainSearch) through engram_keyword_hits (drizzle-pg 0006): the episodes
 * of `episodeMatch` (none when null), then the messages of `messageMatch`, each ranked and cut to `take`,
 * marked by `kind`. The function's queries keep their generic plan for the connection, so the call is
 * planned as one function scan; the tsqueries are built here, from bound parameters, as everywhere else.
 */
export function pgKeywordHits(
  episodeMatch: TermTier | null,
  messageMatch: TermTier,
  userId: string | undefined,
  take: number,
): Statement {
  const episodes = episodeMatch === null ? { sql: 'NULL::tsquery', params: [] } : tsquery(episodeMatch)
  const messages = tsquery(messageMatch)
  return {
    sql: `SELECT kind, session_id, item_id, role, timestamp, source, score, NULL AS snippet, excerpt
      FROM engram_keyword_hits(${episodes.sql}, ${messages.sql}, ?::text, ?, ?)`,
    params: [...episodes.params, ...messages.params, userId ?? null, take, SLICE_CHARS + 1],
    // The store's hottest statement, of a few texts (one per number of terms): planned once per connection.
    prepare: true,
  }
}
