import type { z } from 'zod'
import { pgHitQuery } from '../dialects/postgres/search.ts'
import type { SqlValue, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { stripIndexMarks } from '../search/cjk.ts'
import { joinTerms, parseSearchQuery, type SearchTerm } from '../search/query.ts'
import { isQuestion } from '../search/question-words.ts'
import { ALL_RANK_FEATURES } from '../search/rank.ts'
import { EXCERPT_CHARS, excerptSnippet, SNIPPET_MARKS } from '../search/snippet.ts'
import type { Page, Role, SearchHit, SearchOptions } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { conversationSearch } from './conversation-search.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { countEpisodeHits } from './episodes.ts'
import { messageTiers } from './message-tiers.ts'

const SNIPPET_TOKENS = 32
// FTS5's snippet() scores every match against every other (quadratic: 6 ms for a 16 KB row, minutes for
// 10 MB), so only rows of up to this many bytes get it; longer rows get an excerpt snippet (linear).
const FTS5_SNIPPET_MAX_BYTES = 1024

export interface HitRow {
  session_id: string
  item_id: number
  role: Role | 'episode'
  timestamp: number
  source: string
  /** FTS5's snippet, for a short row. */
  snippet: string | null
  /** The start of a long row, for an excerpt snippet. */
  excerpt: string | null
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
      if (!negate) this.where.push('FALSE')
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
  after?: After,
): Statement {
  const fts = kind === 'message' ? 'messages_fts' : 'episodes_fts'
  const table = kind === 'message' ? 'messages' : 'episodes'
  const time = kind === 'message' ? 't.timestamp' : 't.created_at'
  const filters = sessionFilters(options, time)
  if (kind === 'message') filters.addIn('t.role', asList(options.role))
  const sort = options.sort ?? 'relevance'
  const keyset = sort === 'relevance' ? undefined : keysetFilter(kind, time, sort, after)
  if (keyset) filters.add(keyset.where, ...keyset.params)
  const order = ORDER[sort]
  // The indexed text, as the FTS table's content view defines it. octet_length() of a bare column reads
  // the record header only, where length() of an expression would load megabytes.
  const text = kind === 'message' ? 't.content' : 't.summary'
  const body = `coalesce(t.search_text, ${text}, '')`
  const bytes = `CASE WHEN t.search_text IS NULL THEN octet_length(${text}) ELSE octet_length(t.search_text) END`
  const short = `coalesce(${bytes}, 0) <= ${FTS5_SNIPPET_MAX_BYTES}`
  const { open, close, ellipsis } = SNIPPET_MARKS
  return {
    sql: `SELECT t.session_id, t.id AS item_id, ${kind === 'message' ? 't.role' : "'episode'"} AS role, ${time} AS timestamp,
        s.source, -rank AS score,
        CASE WHEN ${short} THEN snippet(${fts}, 0, '${open}', '${close}', '${ellipsis}', ${SNIPPET_TOKENS}) END AS snippet,
        CASE WHEN NOT ${short} THEN substr(${body}, 1, ${EXCERPT_CHARS}) END AS excerpt
      FROM ${fts} JOIN ${table} t ON t.id = ${fts}.rowid JOIN sessions s ON s.id = t.session_id
      WHERE ${fts} MATCH ? ${filters.where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${order} LIMIT ?`,
    params: [match, ...filters.params, take],
  }
}

/** One half of a search in the store's dialect: FTS5 on SQLite, tsvector on PostgreSQL. */
export const hitStatement = (ctx: StoreContext, ...query: Parameters<typeof hitQuery>): Statement =>
  ctx.dialect === 'postgres' ? pgHitQuery(...query) : hitQuery(...query)

function toHit(kind: 'message' | 'episode', row: HitRow, terms: readonly SearchTerm[]): SearchHit {
  const snippet = row.excerpt === null ? row.snippet : excerptSnippet(row.excerpt, terms, SNIPPET_TOKENS)
  const hit: SearchHit = {
    kind,
    sessionId: row.session_id,
    role: row.role,
    snippet: stripIndexMarks(snippet ?? ''),
    score: row.score,
    timestamp: row.timestamp,
    source: row.source,
  }
  if (kind === 'message') hit.messageId = row.item_id
  else hit.episodeId = row.item_id
  return hit
}

/**
 * Matching message rows for a search: by tiers for relevance (see message-tiers.ts), the plain OR
 * otherwise; `take` rows per tier until `take` are found.
 */
export async function tieredRows(
  ctx: StoreContext,
  terms: readonly SearchTerm[],
  options: SearchOptions,
  take: number,
  after?: After,
): Promise<HitRow[]> {
  const match = joinTerms(terms, 'OR')
  const tiers = (options.sort ?? 'relevance') === 'relevance' ? await messageTiers(ctx, terms) : [match]
  const rows: HitRow[] = []
  const seen = new Set<number>()
  for (const tier of tiers) {
    for (const row of await ctx.read<HitRow>(
      hitStatement(ctx, 'message', tier, options, take, after),
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

type ParsedSearchOptions = z.output<typeof args.searchOptions>

/** Where a keyset page starts: after this (timestamp, id) of episodes (phase 0) or messages (phase 1). */
export interface After {
  phase: 0 | 1
  timestamp: number
  id: number
}

export function keysetFilter(
  hit: 'message' | 'episode',
  time: string,
  order: 'newest' | 'oldest',
  after?: After,
) {
  if (!after) return undefined
  const phase = hit === 'episode' ? 0 : 1
  if (after.phase > phase) return { where: 'FALSE', params: [] }
  if (after.phase < phase) return undefined
  return {
    where: `(${time}, t.id) ${order === 'newest' ? '<' : '>'} (?, ?)`,
    params: [after.timestamp, after.id],
  }
}

async function findHits(
  ctx: StoreContext,
  query: string,
  options: ParsedSearchOptions,
  after?: After,
): Promise<SearchHit[]> {
  const { limit, offset, sort } = options
  const text = typeof query === 'string' ? query : ''
  const terms = parseSearchQuery(text)
  // a natural-language question is ranked with its conversation around it; keywords by their matches only
  const question = sort === 'relevance' && isQuestion(text)
  if (terms.length === 0 && !question) return []
  const match = joinTerms(terms, 'OR')
  const take = offset + limit
  const withEpisodes = options.includeEpisodes && options.role === undefined && terms.length > 0
  const episodeRows = withEpisodes
    ? await ctx.read<HitRow>(hitStatement(ctx, 'episode', match, options, take, after), 'Searching episodes')
    : []
  const messageRows = question
    ? await conversationSearch(ctx, text, options, take, { ...ALL_RANK_FEATURES, ...options.ranking })
    : await tieredRows(ctx, terms, options, take, after)
  const hits = [
    ...episodeRows.map((row) => toHit('episode', row, terms)),
    ...messageRows.map((row) => toHit('message', row, terms)),
  ].slice(offset, take)
  await countEpisodeHits(
    ctx,
    hits.flatMap((hit) => (hit.episodeId === undefined ? [] : [hit.episodeId])),
  )
  return hits
}

/**
 * Ranked full-text search. Episodes (summaries) come before raw messages, filters run in SQL so `limit`
 * counts filtered hits, and the episodes returned have their hit statistics updated (best-effort).
 */
export function search(ctx: StoreContext, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  const parsed = parse(args.searchOptions, options, 'Searching')
  if (parsed.cursor !== undefined) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      'Searching: a cursor continues searchPage(); search() pages by offset.',
    )
  }
  return findHits(ctx, query, parsed)
}

/**
 * One page of a search in time order (`sort` newest or oldest), continued with `cursor`: keyset paging,
 * so hits added meanwhile neither repeat nor shift a page. Relevance has no stable key to page on.
 */
export async function searchPage(
  ctx: StoreContext,
  query: string,
  options: SearchOptions = {},
): Promise<Page<SearchHit>> {
  const action = 'Searching a page'
  const parsed = parse(args.searchOptions, options, action)
  if (parsed.sort === 'relevance') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${action}: keyset pages follow time. Pass sort: 'newest' or 'oldest' (or use search() with offset for relevance).`,
    )
  }
  let after: After | undefined
  if (parsed.cursor !== undefined) {
    const [phase, timestamp, id] = decodeCursor(parsed.cursor, 3, parsed.offset, action) as [
      0 | 1,
      number,
      number,
    ]
    after = { phase, timestamp, id }
  }
  const items = await findHits(ctx, query, parsed, after)
  const last = items.at(-1)
  const nextCursor =
    last && items.length === parsed.limit
      ? encodeCursor([
          last.kind === 'episode' ? 0 : 1,
          last.timestamp,
          (last.kind === 'episode' ? last.episodeId : last.messageId) as number,
        ])
      : null
  return { items, nextCursor }
}
