import type { z } from 'zod'
import type { After, HitRow } from '../dialects/dialect.ts'
import { EngramError } from '../errors.ts'
import { askedRows, orderWithoutSearched, statementsFirst } from '../search/asked.ts'
import { stripIndexMarks } from '../search/cjk.ts'
import { SLICE_CHARS } from '../search/excerpt.ts'
import { parseSearchQuery, type SearchTerm } from '../search/query.ts'
import { isQuestion } from '../search/question-words.ts'
import { ALL_RANK_FEATURES, type RankFeatures } from '../search/rank.ts'
import { excerptSnippet, sliceSnippet } from '../search/snippet.ts'
import { excerptQuery } from '../search-sql.ts'
import type { Page, SearchHit, SearchOptions } from '../types.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { conversationSearch } from './conversation-search.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { countEpisodeHits } from './episodes.ts'

const SNIPPET_TOKENS = 32
/** Message rows a relevance search ranks at least, so that echoes and questions below (asked.ts) cannot fill a small limit. */
const STATEMENT_POOL = 20
/** The pool when that one was full and held fewer statements than the search returns. */
const MAX_STATEMENT_POOL = 200

/**
 * The rows' snippets: made already, or from their excerpts. An excerpt is the row's first SLICE_CHARS + 1
 * characters (search-sql.ts); the few rows whose snippet that slice
 * cannot tell have their EXCERPT_CHARS excerpt read in one more query.
 */
async function snippets(
  ctx: StoreContext,
  kind: 'message' | 'episode',
  rows: readonly HitRow[],
  terms: readonly SearchTerm[],
): Promise<string[]> {
  // an excerpt of a row's index text (PostgreSQL's messages, episodes) has its CJK as pairs: read as its text
  const out = rows.map((row) =>
    row.excerpt === null
      ? stripIndexMarks(row.snippet ?? '')
      : sliceSnippet(stripIndexMarks(row.excerpt), terms, SNIPPET_TOKENS, row.excerpt.length > SLICE_CHARS),
  )
  const missing = rows.flatMap((row, i) => (out[i] === null ? [row.item_id] : []))
  if (missing.length > 0) {
    const excerpts = new Map<number, string>()
    for (const { id, excerpt } of await ctx.read<{ id: number; excerpt: string }>(
      excerptQuery(kind, missing, ctx.dialect.indexedText(kind)),
      'Searching',
    )) {
      excerpts.set(id, excerpt)
    }
    rows.forEach((row, i) => {
      if (out[i] === null)
        out[i] = excerptSnippet(stripIndexMarks(excerpts.get(row.item_id) ?? ''), terms, SNIPPET_TOKENS)
    })
  }
  return out as string[]
}

// Two literals of one shape each (no spread of a shared base): V8 makes each hit in one step.
function toHit(kind: 'message' | 'episode', row: HitRow, snippet: string): SearchHit {
  const { session_id: sessionId, score, timestamp, source } = row
  return kind === 'episode' || row.role === 'episode'
    ? {
        sessionId,
        snippet,
        score,
        timestamp,
        source,
        kind: 'episode',
        role: 'episode',
        episodeId: row.item_id,
      }
    : {
        sessionId,
        snippet,
        score,
        timestamp,
        source,
        kind: 'message',
        role: row.role,
        messageId: row.item_id,
      }
}

type ParsedSearchOptions = z.output<typeof args.searchOptions>

/**
 * The ids of the question rows (asked.ts) whose next message in their session is the agent's retrieval
 * traffic: questions that sent it searching. One indexed read for the few question-shaped rows.
 */
async function searchedQuestions(ctx: StoreContext, asked: readonly number[]): Promise<Set<number>> {
  const found = await ctx.read<{ id: number }>(
    {
      sql: `SELECT t.id FROM messages t WHERE t.id IN (${asked.map(() => '?').join(', ')})
        AND (SELECT n.retrieval FROM messages n WHERE n.session_id = t.session_id AND n.id > t.id
          ORDER BY n.id LIMIT 1) = 1`,
      params: [...asked],
    },
    'Searching messages',
  )
  return new Set(found.map((row) => Number(row.id)))
}

/**
 * The rows with statements first (search/asked.ts), reading which questions sent the agent searching only
 * when that can change what is shown (orderWithoutSearched): on PostgreSQL the read is a round trip.
 */
async function orderedRows(
  ctx: StoreContext,
  rows: readonly HitRow[],
  words: readonly string[],
  take: number,
): Promise<{ rows: HitRow[]; statements: number }> {
  const order = orderWithoutSearched(rows, words, take)
  if (order) return order
  const asked = askedRows(rows).map((row) => row.item_id)
  return statementsFirst(rows, words, await searchedQuestions(ctx, asked))
}

async function findHits(
  ctx: StoreContext,
  query: string,
  options: ParsedSearchOptions,
  features: Readonly<RankFeatures>,
  after?: After,
): Promise<SearchHit[]> {
  const { limit, offset, sort } = options
  const text = typeof query === 'string' ? query : ''
  const terms = parseSearchQuery(text)
  // a natural-language question is ranked with its conversation around it; keywords by their matches only
  const question = sort === 'relevance' && isQuestion(text)
  if (terms.length === 0 && !question) return []
  await ctx.indexWaiting()
  const take = offset + limit
  const withEpisodes = options.includeEpisodes && options.role === undefined && terms.length > 0
  // a keyword search's rows come from the dialect whole (on PostgreSQL its halves are one statement); a
  // question's episodes are one half, its messages the conversation search's
  const read = async (n: number) =>
    question
      ? {
          episodes: withEpisodes
            ? await ctx.read<HitRow>(
                ctx.dialect.hits('episode', { terms, operator: 'OR' }, options, n, after),
                'Searching episodes',
              )
            : [],
          messages: await conversationSearch(ctx, text, options, n, features),
        }
      : await ctx.dialect.keywordRows(ctx, terms, options, n, withEpisodes, after)
  // Statements before echoes and questions (search/asked.ts): the rows are read from a pool of at least
  // STATEMENT_POOL, so that repeated questions cannot fill a small limit, and from a larger one when the
  // pool was full and held too few statements.
  const ordered = sort === 'relevance' && features.statements
  const words = terms.flatMap((term) => (term.stop ? [] : [term.text.toLowerCase()]))
  let pool = ordered ? Math.max(take, STATEMENT_POOL) : take
  let found = await read(pool)
  let order = ordered
    ? await orderedRows(ctx, found.messages, words, take)
    : { rows: found.messages, statements: take }
  if (ordered && order.statements < take && found.messages.length === pool && pool < MAX_STATEMENT_POOL) {
    pool = Math.min(MAX_STATEMENT_POOL, pool * 4)
    found = await read(pool)
    order = await orderedRows(ctx, found.messages, words, take)
  }
  const episodeRows = found.episodes
  const messageRows = order.rows
  // only the rows returned are snippeted
  const shownEpisodes = episodeRows.slice(offset, take)
  const shownMessages = messageRows.slice(
    Math.max(0, offset - episodeRows.length),
    Math.max(0, take - episodeRows.length),
  )
  const episodeSnippets = await snippets(ctx, 'episode', shownEpisodes, terms)
  const messageSnippets = await snippets(ctx, 'message', shownMessages, terms)
  const hits = [
    ...shownEpisodes.map((row, i) => toHit('episode', row, episodeSnippets[i] as string)),
    ...shownMessages.map((row, i) => toHit('message', row, messageSnippets[i] as string)),
  ]
  await countEpisodeHits(
    ctx,
    hits.flatMap((hit) => (hit.kind === 'episode' ? [hit.episodeId] : [])),
  )
  return hits
}

/**
 * Ranked full-text search. Episodes (summaries) come before raw messages, filters run in SQL so `limit`
 * counts filtered hits, and the episodes returned have their hit statistics updated (best-effort).
 * `features` turns single ranking techniques off: only the evaluation harness does (store/evaluation.ts).
 */
export function search(
  ctx: StoreContext,
  query: string,
  options: SearchOptions = {},
  features: Readonly<RankFeatures> = ALL_RANK_FEATURES,
): Promise<SearchHit[]> {
  const parsed = args.parseSearchOptions(options, 'Searching')
  if (parsed.cursor !== undefined) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      'Searching: a cursor continues searchPage(); search() pages by offset.',
    )
  }
  return findHits(ctx, query, parsed, features)
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
  const parsed = args.parseSearchOptions(options, action)
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
  const items = await findHits(ctx, query, parsed, ALL_RANK_FEATURES, after)
  const last = items.at(-1)
  const nextCursor =
    last && items.length === parsed.limit
      ? encodeCursor([
          last.kind === 'episode' ? 0 : 1,
          last.timestamp,
          last.kind === 'episode' ? last.episodeId : last.messageId,
        ])
      : null
  return { items, nextCursor }
}
