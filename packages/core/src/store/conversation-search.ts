import type { HitRow } from '../dialects/dialect.ts'
import { parseSearchQuery, type SearchTerm } from '../search/query.ts'
import { isTimeQuestion, stripQuestionWords, withHanBigrams } from '../search/question-words.ts'
import { ALL_RANK_FEATURES, type Candidate, type RankFeatures, rankCandidates } from '../search/rank.ts'
import { parseQueryDates } from '../search/time-words.ts'
import { windowWords } from '../search/window-words.ts'
import { messageFilters } from '../search-sql.ts'
import type { SearchOptions } from '../types.ts'
import type { StoreContext } from './context.ts'

/** Matching messages fetched per day the query names. */
const DATE_POOL = 20
/** Characters of a neighbour's text returned as its snippet (it matched no word to centre on). */
const NEIGHBOUR_SNIPPET_CHARS = 200
/** Characters of a candidate's text the ranking reads (for time expressions): bounded work per hit. */
const RANKED_TEXT_CHARS = 2000
/** Characters of a candidate's text its window's words are counted in (rank.ts: windows): bounded work per hit. */
const WINDOW_TEXT_CHARS = 500
/** Characters of a candidate's text read for a question mark (rank.ts: replies): bounded work per hit. */
const ASKS_CHARS = 2000
/** Capitalised words of a question looked up as speakers' names: bounded work per question. */
const MAX_NAME_LOOKUPS = 4

interface DetailRow {
  id: number
  session_id: string
  name: string | null
  content: string | null
  asks: number | boolean
  timestamp: number
  prev: number | null
  next: number | null
  prev2: number | null
  next2: number | null
}

const CAPITALISED_WORD = /\p{Lu}[\p{L}\p{N}]*(?:['’]s)?/gu

/**
 * The query without the words that name a speaker of this store (capitalised words some message has
 * as its `name`): "What did Caroline research?" is about Caroline's turns (rank.ts boosts them),
 * while the word "Caroline" itself matches every greeting that names her. One capped lookup per
 * capitalised word; the query unchanged when nothing else would remain.
 */
async function withoutSpeakers(ctx: StoreContext, text: string): Promise<string> {
  const words = [...new Set(text.match(CAPITALISED_WORD) ?? [])].slice(0, MAX_NAME_LOOKUPS)
  let out = text
  for (const word of words) {
    const name = word.replace(/['’]s$/u, '')
    if (await ctx.dialect.isSpeaker(ctx, name)) out = out.replaceAll(word, ' ')
  }
  return parseSearchQuery(out).some((term) => !term.stop) ? out : text
}

async function matchingRows(
  ctx: StoreContext,
  text: string,
  parsed: readonly SearchTerm[],
  options: SearchOptions,
  take: number,
  dates: ReturnType<typeof parseQueryDates>,
  questionWords: boolean,
): Promise<HitRow[]> {
  const bigrams = withHanBigrams(
    text,
    parsed.map((t) => t.text),
  )
  const expanded = questionWords ? parseSearchQuery(bigrams) : parsed
  // a day named in the query stands in for content words: the stop-words kept for lack of them go
  const terms = dates.ranges.length > 0 ? expanded.filter((t) => !t.stop) : expanded
  const rows = new Map<number, HitRow>()
  const add = (list: HitRow[]) => {
    for (const row of list) if (!rows.has(row.item_id)) rows.set(row.item_id, row)
  }
  if (terms.length > 0) add(await ctx.dialect.rankedMessages(ctx, terms, options, take))
  for (const range of dates.ranges) {
    const since = Math.max(range.from, options.since ?? range.from)
    const until = Math.min(range.to, options.until ?? range.to)
    if (since >= until) continue
    const scoped = { ...options, since, until }
    const matching =
      terms.length > 0
        ? await ctx.read<HitRow>(
            ctx.dialect.hits('message', { terms, operator: 'OR' }, scoped, DATE_POOL),
            'Searching messages',
          )
        : []
    // when no word matches on that day ("what happened on 8 May?", "what did Tom cook on 8 May?") the
    // day's messages are the candidates, as strong as the best word match elsewhere
    const best = Math.max(1, ...[...rows.values()].map((row) => row.score))
    add(
      matching.length > 0
        ? matching
        : (await firstRows(ctx, scoped, DATE_POOL)).map((row) => ({ ...row, score: best })),
    )
  }
  return [...rows.values()]
}

/**
 * The relevance-ordered message rows of a search, ranked with their conversation around them (see
 * rank.ts): the matching messages (the same tiers and LIMIT as a keyword search: a larger pool was
 * measured to cost time and add no recall), those of the days the query names, then one query for
 * their speakers, texts and neighbours and one for the neighbours themselves, all under the search's
 * filters. Returns at most `take` rows.
 */
export async function conversationSearch(
  ctx: StoreContext,
  query: string,
  options: SearchOptions,
  take: number,
  features: RankFeatures = ALL_RANK_FEATURES,
): Promise<HitRow[]> {
  const now = options.now ?? Date.now()
  const dates = features.dates ? parseQueryDates(query, now) : { text: query, ranges: [] }
  const asked = features.questionWords ? stripQuestionWords(dates.text) : dates.text
  const text = features.participants ? await withoutSpeakers(ctx, asked) : asked
  const parsed = parseSearchQuery(text)
  const matched = await matchingRows(ctx, text, parsed, options, take, dates, features.questionWords)
  if (matched.length === 0) return []

  const rows = new Map<number, HitRow>(matched.map((row) => [row.item_id, row]))
  const timeQuestion = isTimeQuestion(query)
  // a when-question reads the texts for time expressions, the windows for the question's words
  const chars =
    features.time && timeQuestion
      ? RANKED_TEXT_CHARS
      : features.windows
        ? WINDOW_TEXT_CHARS
        : NEIGHBOUR_SNIPPET_CHARS + 1
  const candidates = await neighbourhood(ctx, options, rows, features.windows || features.replies, chars)
  const words = windowWords(
    parsed
      // a CJK run is one primary term: its pairs (helper terms) are what a window's text holds
      .filter((term) => !term.stop && (term.primary || term.cjk))
      .map((term) => term.text),
  )
  const ranked = rankCandidates(
    candidates,
    { text: query, words, timeQuestion, ranges: dates.ranges },
    features,
  )
  return ranked.slice(0, take).map(({ id, score }) => ({ ...(rows.get(id) as HitRow), score }))
}

/**
 * One query for the matched messages' speakers, texts (their first `chars` characters) and neighbour ids
 * and, with `neighbours`, for the previous and next message of each that the search's filters allow. Neighbours are added to `rows`
 * with the start of their text as snippet.
 */
async function neighbourhood(
  ctx: StoreContext,
  options: SearchOptions,
  rows: Map<number, HitRow>,
  neighbours: boolean,
  chars: number,
): Promise<Map<number, Candidate>> {
  const ids = [...rows.keys()]
  const matched = new Set(ids)
  const filters = messageFilters(options)
  const found = await ctx.read<DetailRow & Omit<HitRow, 'snippet' | 'excerpt' | 'score'>>(
    {
      sql: `WITH c(id) AS (VALUES ${ids.map(() => '(CAST(? AS BIGINT))').join(', ')}),
        w AS MATERIALIZED (SELECT c.id,
          (SELECT max(m.id) FROM messages m WHERE m.session_id = t.session_id AND m.id < c.id) AS prev,
          (SELECT min(m.id) FROM messages m WHERE m.session_id = t.session_id AND m.id > c.id) AS next,
          (SELECT m.id FROM messages m WHERE m.session_id = t.session_id AND m.id < c.id
            ORDER BY m.id DESC LIMIT 1 OFFSET 1) AS prev2,
          (SELECT m.id FROM messages m WHERE m.session_id = t.session_id AND m.id > c.id
            ORDER BY m.id LIMIT 1 OFFSET 1) AS next2
          FROM c JOIN messages t ON t.id = c.id)
        SELECT t.id, t.session_id, t.id AS item_id, t.role, t.timestamp, s.source, t.name,
          substr(t.content, 1, ${chars}) AS content, CASE WHEN w.id IS NULL THEN FALSE ELSE (substr(t.content, 1, ${ASKS_CHARS}) LIKE ? OR substr(t.content, 1, ${ASKS_CHARS}) LIKE ?) END AS asks,
          w.prev, w.next, w.prev2, w.next2
        FROM messages t JOIN sessions s ON s.id = t.session_id LEFT JOIN w ON w.id = t.id
        WHERE t.id IN (${neighbours ? 'SELECT id FROM w UNION ALL SELECT prev FROM w UNION ALL SELECT next FROM w UNION ALL SELECT prev2 FROM w UNION ALL SELECT next2 FROM w' : 'SELECT id FROM c'})
          ${filters.where.map((where) => `AND ${where}`).join(' ')}`,
      // the question marks (ASCII and full-width, as Chinese and Japanese write it) as bound patterns:
      // never a placeholder in the statement's text
      params: [...ids, '%?%', '%？%', ...filters.params],
    },
    'Searching messages',
  )
  const candidates = new Map<number, Candidate>()
  // plain literals, not rest and spread: a question reads a few hundred of these rows
  for (const row of found) {
    const known = rows.get(row.id)
    if (known === undefined)
      rows.set(row.id, {
        session_id: row.session_id,
        item_id: row.item_id,
        role: row.role,
        timestamp: row.timestamp,
        source: row.source,
        snippet: startOf(row.content),
        excerpt: null,
        score: 0,
      })
    candidates.set(row.id, {
      id: row.id,
      sessionId: row.session_id,
      relevance: known?.score ?? 0,
      prev: row.prev,
      next: row.next,
      name: row.name,
      role: row.role,
      content: row.content,
      asks: Boolean(row.asks),
      timestamp: row.timestamp,
    })
  }
  // a neighbour's own links are those of the matches beside it (two on either side)
  const link = (first: number | null | undefined, second: number | null | undefined) => {
    const before = first == null ? undefined : candidates.get(first)
    const after = second == null ? undefined : candidates.get(second)
    if (before === undefined || after === undefined) return
    if (!matched.has(before.id)) before.next = after.id
    if (!matched.has(after.id)) after.prev = before.id
  }
  for (const row of found) {
    if (!matched.has(row.id)) continue
    link(row.prev2, row.prev)
    link(row.prev, row.id)
    link(row.id, row.next)
    link(row.next, row.next2)
  }
  return candidates
}

/** The start of a text as a snippet (never half a surrogate pair). */
function startOf(content: string | null): string {
  const text = content ?? ''
  if (text.length <= NEIGHBOUR_SNIPPET_CHARS) return text
  const high = text.charCodeAt(NEIGHBOUR_SNIPPET_CHARS - 1)
  const end = high >= 0xd800 && high <= 0xdbff ? NEIGHBOUR_SNIPPET_CHARS - 1 : NEIGHBOUR_SNIPPET_CHARS
  return `${text.slice(0, end)}…`
}

/** The first messages in time under the search's filters (a day's messages), with the start of their text as snippet. */
async function firstRows(ctx: StoreContext, options: SearchOptions, limit: number): Promise<HitRow[]> {
  const filters = messageFilters(options)
  const rows = await ctx.read<Omit<HitRow, 'snippet' | 'excerpt'> & { content: string | null }>(
    {
      sql: `SELECT t.session_id, t.id AS item_id, t.role, t.timestamp, s.source,
          substr(t.content, 1, ${NEIGHBOUR_SNIPPET_CHARS + 1}) AS content, 0 AS score
        FROM messages t JOIN sessions s ON s.id = t.session_id
        WHERE TRUE ${filters.where.map((where) => `AND ${where}`).join(' ')}
        ORDER BY t.timestamp, t.id LIMIT ?`,
      params: [...filters.params, limit],
    },
    'Searching messages',
  )
  return rows.map(({ content, ...row }) => ({ ...row, snippet: startOf(content), excerpt: null }))
}
