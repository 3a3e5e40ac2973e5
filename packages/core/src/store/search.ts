import type { SqlValue, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { stripIndexMarks } from '../search/cjk.ts'
import { joinTerms, parseSearchQuery, type SearchTerm } from '../search/query.ts'
import { isQuestion } from '../search/question-words.ts'
import { ALL_RANK_FEATURES } from '../search/rank.ts'
import type { Role, SearchHit, SearchOptions } from '../types.ts'
import type { StoreContext } from './context.ts'
import { conversationSearch } from './conversation-search.ts'
import { messageTiers } from './message-tiers.ts'
import { checkPaging } from './paging.ts'

const SNIPPET_TOKENS = 32

export interface HitRow {
  session_id: string
  item_id: number
  role: Role | 'episode'
  timestamp: number
  source: string
  snippet: string
  score: number
}

const asList = <T>(value: T | T[] | undefined): T[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value]

class Filters {
  readonly where: string[] = []
  readonly params: SqlValue[] = []

  add(clause: string, ...params: SqlValue[]): void {
    this.where.push(clause)
    this.params.push(...params)
  }

  addIn(column: string, values: readonly string[] | undefined, negate = false): void {
    if (values === undefined) return
    if (values.length === 0) {
      if (!negate) this.where.push('0')
      return
    }
    this.add(`${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`, ...values)
  }
}

export function sessionFilters(options: SearchOptions, timeColumn: string): Filters {
  const filters = new Filters()
  if (options.sessionId !== undefined) filters.add('t.session_id = ?', options.sessionId)
  if (options.userId !== undefined) filters.add('s.user_id = ?', options.userId)
  filters.addIn('s.source', asList(options.source))
  filters.addIn('s.source', options.excludeSources, true)
  if (options.since !== undefined) filters.add(`${timeColumn} >= ?`, options.since)
  if (options.until !== undefined) filters.add(`${timeColumn} < ?`, options.until)
  return filters
}

// Relevance must be `rank` alone: then FTS5 yields rows best-first and SQLite stops after `LIMIT` rows
// instead of joining, scoring and snippeting every match (any extra sort key brings that back).
const ORDER = {
  relevance: 'rank',
  newest: 'timestamp DESC, item_id DESC',
  oldest: 'timestamp ASC, item_id ASC',
} as const

/** The SQL of one half of a search (exported for the benchmark, which runs it on a raw connection). */
export function hitQuery(
  kind: 'message' | 'episode',
  match: string,
  options: SearchOptions,
  take: number,
): Statement {
  const fts = kind === 'message' ? 'messages_fts' : 'episodes_fts'
  const table = kind === 'message' ? 'messages' : 'episodes'
  const time = kind === 'message' ? 't.timestamp' : 't.created_at'
  const filters = sessionFilters(options, time)
  if (kind === 'message') filters.addIn('t.role', asList(options.role))
  const order = ORDER[options.sort ?? 'relevance']
  return {
    sql: `SELECT t.session_id, t.id AS item_id, ${kind === 'message' ? 't.role' : "'episode'"} AS role, ${time} AS timestamp,
        s.source, snippet(${fts}, 0, '«', '»', '…', ${SNIPPET_TOKENS}) AS snippet, -rank AS score
      FROM ${fts} JOIN ${table} t ON t.id = ${fts}.rowid JOIN sessions s ON s.id = t.session_id
      WHERE ${fts} MATCH ? ${filters.where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${order} LIMIT ?`,
    params: [match, ...filters.params, take],
  }
}

/**
 * Matching message rows for a relevance search (by tiers, see message-tiers.ts; `sort` other than
 * relevance runs the plain OR), `fetch` rows per tier until `take` are found.
 */
export async function tieredRows(
  ctx: StoreContext,
  terms: readonly SearchTerm[],
  options: SearchOptions,
  take: number,
  fetch: number,
): Promise<HitRow[]> {
  const match = joinTerms(terms, 'OR')
  const tiers = (options.sort ?? 'relevance') === 'relevance' ? await messageTiers(ctx, terms) : [match]
  const rows: HitRow[] = []
  const seen = new Set<number>()
  for (const tier of tiers) {
    for (const row of await ctx.read<HitRow>(
      hitQuery('message', tier, options, fetch),
      'Searching messages',
    )) {
      if (!seen.has(row.item_id)) {
        seen.add(row.item_id)
        rows.push(row)
      }
    }
    if (rows.length >= take) break
  }
  return rows
}

function toHit(kind: 'message' | 'episode', row: HitRow): SearchHit {
  const hit: SearchHit = {
    kind,
    sessionId: row.session_id,
    role: row.role,
    snippet: stripIndexMarks(row.snippet),
    score: row.score,
    timestamp: row.timestamp,
    source: row.source,
  }
  if (kind === 'message') hit.messageId = row.item_id
  else hit.episodeId = row.item_id
  return hit
}

/**
 * Ranked full-text search. Episodes (summaries) come before raw messages, filters run in SQL so `limit`
 * counts filtered hits, and the episodes returned have their hit statistics updated.
 */
export async function search(
  ctx: StoreContext,
  query: string,
  options: SearchOptions = {},
): Promise<SearchHit[]> {
  const { limit, offset } = checkPaging(options, 10)
  if (options.sort !== undefined && !Object.hasOwn(ORDER, options.sort)) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `sort must be one of ${Object.keys(ORDER).join(', ')} (got ${JSON.stringify(options.sort)}).`,
    )
  }
  const text = typeof query === 'string' ? query : ''
  const terms = parseSearchQuery(text)
  // a natural-language question is ranked with its conversation around it; keywords by their matches only
  const question = (options.sort ?? 'relevance') === 'relevance' && isQuestion(text)
  if (terms.length === 0 && !question) return []
  const match = joinTerms(terms, 'OR')
  const take = offset + limit
  const withEpisodes = (options.includeEpisodes ?? true) && options.role === undefined && terms.length > 0
  const episodeRows = withEpisodes
    ? await ctx.read<HitRow>(hitQuery('episode', match, options, take), 'Searching episodes')
    : []
  const messageRows = question
    ? await conversationSearch(ctx, text, options, take, { ...ALL_RANK_FEATURES, ...options.ranking })
    : await tieredRows(ctx, terms, options, take, take)
  const hits = [
    ...episodeRows.map((row) => toHit('episode', row)),
    ...messageRows.map((row) => toHit('message', row)),
  ].slice(offset, take)

  const episodeIds = hits.flatMap((hit) => (hit.episodeId === undefined ? [] : [hit.episodeId]))
  if (episodeIds.length > 0) {
    await ctx.write(
      [
        {
          sql: `UPDATE episodes SET hit_count = hit_count + 1, last_hit_at = ? WHERE id IN (${episodeIds.map(() => '?').join(', ')})`,
          params: [Date.now(), ...episodeIds],
        },
      ],
      'Recording episode hits',
    )
  }
  return hits
}
