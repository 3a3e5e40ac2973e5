import type { SqlValue } from '../driver.ts'
import { joinTerms, parseSearchQuery } from '../search/query.ts'
import { isTimeQuestion, stripQuestionWords, withHanBigrams } from '../search/question-words.ts'
import { ALL_RANK_FEATURES, type Candidate, type RankFeatures, rankCandidates } from '../search/rank.ts'
import { parseQueryDates } from '../search/time-words.ts'
import type { SearchOptions } from '../types.ts'
import type { StoreContext } from './context.ts'
import { type HitRow, hitQuery, sessionFilters, tieredRows } from './search.ts'

/** Matching messages fetched per day the query names. */
const DATE_POOL = 20
/** Characters of a neighbour's text returned as its snippet (it matched no word to centre on). */
const NEIGHBOUR_SNIPPET_CHARS = 200
/** Characters of a candidate's text the ranking reads (for time expressions): bounded work per hit. */
const RANKED_TEXT_CHARS = 2000

interface DetailRow {
  id: number
  session_id: string
  name: string | null
  content: string | null
  timestamp: number
  prev: number | null
  next: number | null
}

interface NeighbourRow extends HitRow {
  name: string | null
  content: string | null
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')

async function matchingRows(
  ctx: StoreContext,
  text: string,
  options: SearchOptions,
  take: number,
  dates: ReturnType<typeof parseQueryDates>,
  questionWords: boolean,
): Promise<HitRow[]> {
  const parsed = parseSearchQuery(text)
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
  if (terms.length > 0) add(await tieredRows(ctx, terms, options, take))
  for (const range of dates.ranges) {
    const since = Math.max(range.from, options.since ?? range.from)
    const until = Math.min(range.to, options.until ?? range.to)
    if (since >= until) continue
    const scoped = { ...options, since, until }
    const matching =
      terms.length > 0
        ? await ctx.read<HitRow>(
            hitQuery('message', joinTerms(terms, 'OR'), scoped, DATE_POOL),
            'Searching messages',
          )
        : []
    // when no word matches on that day ("what happened on 8 May?", "what did Tom cook on 8 May?") the
    // day's messages are the candidates, as strong as the best word match elsewhere
    const best = Math.max(1, ...[...rows.values()].map((row) => row.score))
    add(
      matching.length > 0
        ? matching
        : (await plainRows(ctx, scoped, null, DATE_POOL)).map(({ name, content, ...row }) => ({
            ...row,
            score: best,
          })),
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
  const text = features.questionWords ? stripQuestionWords(dates.text) : dates.text
  const matched = await matchingRows(ctx, text, options, take, dates, features.questionWords)
  if (matched.length === 0) return []

  const rows = new Map<number, HitRow>(matched.map((row) => [row.item_id, row]))
  const ids = matched.map((row) => row.item_id)
  const details = await ctx.read<DetailRow>(
    {
      sql: `SELECT c.id, c.session_id, c.name, substr(c.content, 1, ${RANKED_TEXT_CHARS}) AS content, c.timestamp,
          (SELECT max(m.id) FROM messages m WHERE m.session_id = c.session_id AND m.id < c.id) AS prev,
          (SELECT min(m.id) FROM messages m WHERE m.session_id = c.session_id AND m.id > c.id) AS next
        FROM messages c WHERE c.id IN (${placeholders(ids.length)})`,
      params: ids,
    },
    'Searching messages',
  )
  const candidates = new Map<number, Candidate>()
  for (const d of details) {
    candidates.set(d.id, {
      id: d.id,
      sessionId: d.session_id,
      relevance: rows.get(d.id)?.score ?? 0,
      prev: d.prev,
      next: d.next,
      name: d.name,
      content: d.content,
      timestamp: d.timestamp,
    })
  }
  if (features.windows || features.follow) await addNeighbours(ctx, options, candidates, rows)

  const ranked = rankCandidates(
    candidates,
    { text: query, timeQuestion: isTimeQuestion(query), ranges: dates.ranges },
    features,
  )
  return ranked.slice(0, take).map(({ id, score }) => ({ ...(rows.get(id) as HitRow), score }))
}

/** Adds the previous and next message of every candidate that the search's filters allow. */
async function addNeighbours(
  ctx: StoreContext,
  options: SearchOptions,
  candidates: Map<number, Candidate>,
  rows: Map<number, HitRow>,
): Promise<void> {
  const around = new Map<number, { prev: number | null; next: number | null }>()
  for (const c of candidates.values()) {
    if (c.prev !== null && !candidates.has(c.prev)) around.set(c.prev, { prev: null, next: c.id })
    if (c.next !== null && !candidates.has(c.next)) {
      const known = around.get(c.next)
      around.set(c.next, { prev: c.id, next: known?.next ?? null })
    }
  }
  if (around.size === 0) return
  const neighbours = await plainRows(ctx, options, [...around.keys()], around.size)
  for (const n of neighbours) {
    const links = around.get(n.item_id)
    const { name, content, ...row } = n
    rows.set(n.item_id, row)
    candidates.set(n.item_id, {
      id: n.item_id,
      sessionId: n.session_id,
      relevance: 0,
      prev: links?.prev ?? null,
      next: links?.next ?? null,
      name,
      content,
      timestamp: n.timestamp,
    })
  }
}

/**
 * Messages by id (or, with ids null, the first ones in time) under the search's filters, with the start
 * of their text as snippet.
 */
async function plainRows(
  ctx: StoreContext,
  options: SearchOptions,
  ids: readonly number[] | null,
  limit: number,
): Promise<NeighbourRow[]> {
  const filters = sessionFilters(options, 't.timestamp')
  const role = options.role
  filters.addIn('t.role', role === undefined ? undefined : Array.isArray(role) ? role : [role])
  const params: SqlValue[] = []
  let where = '1'
  if (ids !== null) {
    where = `t.id IN (${placeholders(ids.length)})`
    params.push(...ids)
  }
  const rows = await ctx.read<Omit<NeighbourRow, 'snippet'>>(
    {
      sql: `SELECT t.session_id, t.id AS item_id, t.role, t.timestamp, s.source, t.name,
          substr(t.content, 1, ${RANKED_TEXT_CHARS}) AS content, 0 AS score
        FROM messages t JOIN sessions s ON s.id = t.session_id
        WHERE ${where} ${filters.where.map((w) => `AND ${w}`).join(' ')}
        ORDER BY t.timestamp, t.id LIMIT ?`,
      params: [...params, ...filters.params, limit],
    },
    'Searching messages',
  )
  return rows.map((row) => {
    const text = row.content ?? ''
    if (text.length <= NEIGHBOUR_SNIPPET_CHARS) return { ...row, snippet: text }
    const high = text.charCodeAt(NEIGHBOUR_SNIPPET_CHARS - 1)
    const end = high >= 0xd800 && high <= 0xdbff ? NEIGHBOUR_SNIPPET_CHARS - 1 : NEIGHBOUR_SNIPPET_CHARS
    return { ...row, snippet: `${text.slice(0, end)}…` }
  })
}
