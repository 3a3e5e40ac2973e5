import type { z } from 'zod'
import type { SqlValue, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { stripIndexMarks } from '../search/cjk.ts'
import { joinTerms, parseSearchQuery, type SearchTerm } from '../search/query.ts'
import { isQuestion } from '../search/question-words.ts'
import { ALL_RANK_FEATURES, type RankFeatures } from '../search/rank.ts'
import { EXCERPT_CHARS, excerptSnippet } from '../search/snippet.ts'
import type { Page, Role, SearchHit, SearchOptions } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { conversationSearch } from './conversation-search.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { countEpisodeHits } from './episodes.ts'
import { messageTiers } from './message-tiers.ts'

/**
 * Search options with what only the evaluation harness sets: `ranking` turns single ranking techniques
 * off (see search/rank.ts; all are on by default). Not part of the public SearchOptions; a variable of
 * this type passes to `store.search` as it is.
 */
export interface EvaluationSearchOptions extends SearchOptions {
  ranking?: Partial<RankFeatures>
}

const SNIPPET_TOKENS = 32

export interface HitRow {
  session_id: string
  item_id: number
  role: Role | 'episode'
  timestamp: number
  source: string
  /** A snippet made already (a neighbour's start of text), or null when `excerpt` is to be snippeted. */
  snippet: string | null
  /** The start of the row's indexed text, for an excerpt snippet. */
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
      if (!negate) this.where.push('0')
      return
    }
    this.add(`${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`, ...values)
  }
}

/**
 * The ids of a session's compression chain: the session, its ancestors and its descendants, following
 * `parent_session_id` only between sessions of the same user (as getLineage does). Two parameters: the id.
 */
const LINEAGE_IDS = `WITH RECURSIVE
    up(id, user_id, depth) AS (
      SELECT id, user_id, 0 FROM sessions WHERE id = ?
      UNION ALL
      SELECT p.id, p.user_id, up.depth + 1 FROM up JOIN sessions child ON child.id = up.id
        JOIN sessions p ON p.id = child.parent_session_id AND p.user_id IS up.user_id
      WHERE up.depth < 10000),
    down(id, user_id, depth) AS (
      SELECT id, user_id, 0 FROM sessions WHERE id = ?
      UNION ALL
      SELECT c.id, c.user_id, down.depth + 1 FROM down
        JOIN sessions c ON c.parent_session_id = down.id AND c.user_id IS down.user_id
      WHERE down.depth < 10000)
  SELECT id FROM up UNION SELECT id FROM down`

export function sessionFilters(options: SearchOptions, timeColumn: string): Filters {
  const filters = new Filters()
  if (options.sessionId !== undefined) filters.add('t.session_id = ?', options.sessionId)
  const lineage = options.excludeLineageOf
  // one uncorrelated subquery: SQLite evaluates it once per statement
  if (lineage !== undefined) filters.add(`t.session_id NOT IN (${LINEAGE_IDS})`, lineage, lineage)
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
  // The indexed text, as the FTS table's content view defines it. Snippets are made in JS from its start
  // (snippet.ts): FTS5's snippet() re-tokenises the row and scores every match against every other
  // (quadratic in the matches; 13% of the bare ranked MATCH in instructions on the bench corpus).
  const text = kind === 'message' ? 't.content' : 't.summary'
  return {
    sql: `SELECT t.session_id, t.id AS item_id, ${kind === 'message' ? 't.role' : "'episode'"} AS role, ${time} AS timestamp,
        s.source, -rank AS score, NULL AS snippet,
        substr(coalesce(t.search_text, ${text}, ''), 1, ${EXCERPT_CHARS}) AS excerpt
      FROM ${fts} JOIN ${table} t ON t.id = ${fts}.rowid JOIN sessions s ON s.id = t.session_id
      WHERE ${fts} MATCH ? ${filters.where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${order} LIMIT ?`,
    params: [match, ...filters.params, take],
  }
}

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
      hitQuery('message', tier, options, take, after),
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
interface After {
  phase: 0 | 1
  timestamp: number
  id: number
}

function keysetFilter(hit: 'message' | 'episode', time: string, order: 'newest' | 'oldest', after?: After) {
  if (!after) return undefined
  const phase = hit === 'episode' ? 0 : 1
  if (after.phase > phase) return { where: '0', params: [] }
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
    ? await ctx.read<HitRow>(hitQuery('episode', match, options, take, after), 'Searching episodes')
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
