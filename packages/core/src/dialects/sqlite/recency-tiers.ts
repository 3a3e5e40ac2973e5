/**
 * Relevance search over many matches, on SQLite: recency tiers instead of scoring every match.
 *
 * FTS5 ranks by scoring every row a MATCH finds before it can return the best few: a frequent word in a
 * million messages means ~84,000 rows scored per query. Here the matches are taken newest first, in tiers
 * of rowids: the newest TIER_MATCHES matches, then the next TIER_GROWTH × as many, and so on, each tier
 * scored on its own (FTS5 narrows a MATCH to a rowid range in its index, so only the tier's rows are
 * scored; with filters, only the tier's rows that pass them).
 *
 * The rule that makes a tier's hits final (what "could not be beaten by an older row" means):
 * - FTS5's bm25 of a row is Σ over the query's phrases of idf · f·(k1+1) / (f + k1·(1 − b + b·len/avglen)),
 *   which is below (k1+1) · Σ idf whatever the row's phrase counts f and length: the CEILING. idf only
 *   needs each phrase's number of matching rows (counted) and the number of rows (bounded by max(id)).
 * - bm25 alone has no useful bound: the 20th best of the newest 4,000 matches is almost never at the
 *   ceiling, so no tier would ever be final. Tiers therefore carry a recency weight: a hit of tier i
 *   scores bm25 × TIER_DECAY^i (the newest tier keeps its bm25 as it is).
 * - After tier i the search stops once it holds `take` hits and the `take`-th best weighted score is at
 *   least TIER_DECAY^(i+1) × CEILING: no row of an older tier can score above that, so none could enter
 *   the hits. Otherwise the next, larger tier is scored, down to the oldest match.
 * A MATCH with fewer than TIER_MATCHES matches is one tier: the plain ranked query, exactly as before,
 * which is every search of a small store (and of the evaluation sets).
 */
import { indexPhrase } from '../../search/index-phrase.ts'
import type { SearchTerm } from '../../search/query.ts'
import type { TermTier } from '../../search/tiers.ts'
import { isScoped, messageFilters, NOT_RETRIEVAL } from '../../search-sql.ts'
import type { SearchOptions } from '../../types.ts'
import type { DialectConnection, HitRow } from '../dialect.ts'
import { hitQuery } from './hits.ts'
import { sliceColumn } from './indexed-text.ts'
import { ftsMatch, ftsTerm } from './match.ts'

/** Matches in the newest tier: below this a MATCH is ranked whole (scoring a few thousand rows is quick). */
export const TIER_MATCHES = 4096
/** Each older tier holds this many times the matches of the one before it. */
const TIER_GROWTH = 4
/** The weight of a hit's bm25 falls by this factor per tier of age. */
export const TIER_DECAY = 0.5
/** FTS5's bm25 constants (fts5_aux.c). */
const K1 = 1.2
/**
 * Rows beyond `take` that an unscoped tier ranks, so that the retrieval traffic it then drops (see
 * tierRows) still leaves `take`; when it does not, the tier is ranked again with the filter joined.
 */
const RETRIEVAL_SLACK = 16

/**
 * One tier: the rowids [from, to) of the matches it holds (to null: up to the newest; from null: the
 * newest TIER_MATCHES matches, their lowest rowid found by the tier's own statement, 0 when fewer).
 */
interface Tier {
  from: number | null
  to: number | null
  weight: number
}

const SOURCE = 'messages_fts'

/** The rowid of the `n`-th newest match below `below` (null: fewer matches than that). */
async function boundary(ctx: DialectConnection, match: string, below: number | null, n: number) {
  const [row] = await ctx.read<{ id: number }>(
    {
      sql: `SELECT rowid AS id FROM ${SOURCE} WHERE ${SOURCE} MATCH ?${below === null ? '' : ' AND rowid < ?'}
        ORDER BY rowid DESC LIMIT 1 OFFSET ?`,
      params: below === null ? [match, n - 1] : [match, below, n - 1],
    },
    'Searching messages',
  )
  return row?.id ?? null
}

/** (k1+1) · Σ idf over the phrases: no row's bm25 for this MATCH exceeds it (see the module comment). */
async function ceiling(ctx: DialectConnection, terms: readonly SearchTerm[]): Promise<number> {
  const [{ n } = { n: 0 }] = await ctx.read<{ n: number }>(
    { sql: 'SELECT coalesce(max(id), 0) AS n FROM messages' },
    'Searching messages',
  )
  let sum = 0
  for (const term of terms) {
    const [{ hits } = { hits: 0 }] = await ctx.read<{ hits: number }>(
      { sql: `SELECT count(*) AS hits FROM ${SOURCE} WHERE ${SOURCE} MATCH ?`, params: [ftsTerm(term)] },
      'Searching messages',
    )
    // idf grows with the number of rows, so max(id) (at least that number) keeps this an upper bound
    sum += Math.max(1e-6, Math.log((n - hits + 0.5) / (hits + 0.5)))
  }
  return (K1 + 1) * sum
}

/** The rowid of the `TIER_MATCHES`-th newest match, or 0: SQL over the MATCH and the offset. */
const NEWEST_TIER_FROM = `coalesce((SELECT rowid FROM ${SOURCE} WHERE ${SOURCE} MATCH ? ORDER BY rowid DESC
  LIMIT 1 OFFSET ?), 0)`

/**
 * The best `take` matches of one tier, scored bm25 × its weight, only rows passing the filters scored;
 * with the lowest rowid of the tier (its `from`, found here when the tier's is null). A search scoped by
 * nothing but the retrieval filter ranks the tier's matches without joining them (the bounded sorter
 * over the index alone) and drops the retrieval traffic from its best `take` + RETRIEVAL_SLACK; only when
 * that leaves fewer than `take` of a full list is the tier ranked again with the filter joined.
 */
async function tierRows(
  ctx: DialectConnection,
  match: string,
  options: SearchOptions,
  take: number,
  tier: Tier,
  onePass: boolean,
): Promise<{ rows: HitRow[]; from: number | null }> {
  const filters = messageFilters(options)
  const scoped = isScoped(filters)
  const dropAfter = !scoped && options.includeRetrieval !== true
  const found = await rankTier(ctx, match, take, tier, filters, scoped, dropAfter, onePass)
  const tierFrom = (rows: typeof found.rows) => tier.from ?? rows[0]?.tier_from ?? null
  // short of `take` from a full list, or nothing left to tell the tier's bound: ranked again, joined
  if (
    dropAfter &&
    found.rows.length < take &&
    (found.rows.length === 0 || found.ranked === take + RETRIEVAL_SLACK)
  ) {
    const again = await rankTier(ctx, match, take, tier, filters, true, false, false)
    return { rows: again.rows, from: tierFrom(again.rows) }
  }
  // the tier's bound stays on the rows (an extra column no caller reads): a rest copy per row costs more
  return { rows: found.rows, from: tierFrom(found.rows) }
}

/** One tier's statement: joined (every filter applied while ranking), or ranked over the index alone. */
async function rankTier(
  ctx: DialectConnection,
  match: string,
  take: number,
  tier: Tier,
  filters: ReturnType<typeof messageFilters>,
  joins: boolean,
  dropAfter: boolean,
  onePass: boolean,
): Promise<{ rows: (HitRow & { tier_from: number; ranked: number })[]; ranked: number }> {
  const inner = joins ? filters : { where: [], params: [] }
  const join = joins ? `JOIN messages t ON t.id = ${SOURCE}.rowid JOIN sessions s ON s.id = t.session_id` : ''
  const where = inner.where.map((w) => `AND ${w}`).join(' ')
  // The newest tier of a MATCH of several tokens, ranked over the index alone: its matches newest first,
  // each scored as it is read (one pass over the MATCH), its bound the oldest of them when there are
  // TIER_MATCHES. Otherwise the tier's rowid range, the newest tier's found by walking its matches first:
  // a filter must not move the bound, and a single token's matches are walked more cheaply than scored
  // newest first (see onePassMatch).
  const newest = tier.from === null && !joins && onePass
  const ctes = newest
    ? `m AS MATERIALIZED (
          SELECT rowid AS id, -bm25(${SOURCE}) AS score FROM ${SOURCE}
          WHERE ${SOURCE} MATCH ? ORDER BY rowid DESC LIMIT ${TIER_MATCHES}),
        b AS MATERIALIZED (SELECT CASE WHEN count(*) = ${TIER_MATCHES} THEN min(id) ELSE 0 END AS id FROM m),
        h AS MATERIALIZED (SELECT id, score FROM m ORDER BY score DESC, id LIMIT ?)`
    : `b AS MATERIALIZED (SELECT ${tier.from === null ? NEWEST_TIER_FROM : '?'} AS id),
        h AS MATERIALIZED (
          SELECT ${SOURCE}.rowid AS id, -bm25(${SOURCE}) AS score FROM ${SOURCE} ${join}
          WHERE ${SOURCE} MATCH ? AND ${SOURCE}.rowid >= (SELECT id FROM b)${tier.to === null ? '' : ` AND ${SOURCE}.rowid < ?`}
            ${where}
          ORDER BY score DESC, id LIMIT ?)`
  const limit = dropAfter ? take + RETRIEVAL_SLACK : take
  // The tier's best rows first (a sorter keeping `take` rows), then their columns and excerpts: the
  // MATERIALIZED CTE keeps SQLite from reading the excerpt of every scored row.
  const rows = await ctx.read<HitRow & { tier_from: number; ranked: number }>(
    {
      sql: `WITH ${ctes}
        SELECT t.session_id, t.id AS item_id, t.role, t.timestamp AS timestamp, s.source,
          h.score * ? AS score, NULL AS snippet,
          ${sliceColumn('message')} AS excerpt, (SELECT id FROM b) AS tier_from
          ${dropAfter ? ', (SELECT count(*) FROM h) AS ranked' : ''}
        FROM h JOIN messages t ON t.id = h.id JOIN sessions s ON s.id = t.session_id
        ${dropAfter ? `WHERE ${NOT_RETRIEVAL}` : ''}
        ORDER BY h.score DESC, h.id${dropAfter ? ' LIMIT ?' : ''}`,
      params: newest
        ? [match, limit, tier.weight, ...(dropAfter ? [take] : [])]
        : [
            ...(tier.from === null ? [match, TIER_MATCHES - 1] : [tier.from]),
            match,
            ...(tier.to === null ? [] : [tier.to]),
            ...inner.params,
            limit,
            tier.weight,
            ...(dropAfter ? [take] : []),
          ],
    },
    'Searching messages',
  )
  return { rows, ranked: dropAfter ? Number(rows[0]?.ranked ?? 0) : rows.length }
}

/**
 * Whether the newest tier scores its matches as it walks them (one pass) rather than walking them to its
 * bound and then scoring them: for a MATCH of several tokens (several terms, a phrase, a prefix), whose
 * walk is itself costly. One token's walk is cheap, and scoring its matches newest first costs more than
 * scoring them in rowid order (the bench's W3 database: one word 0.79× the floor walked, 0.84× in one
 * pass; two words 1.60× against 1.45×, a four-character Chinese word, three pairs, 0.69–0.95 of the time).
 */
const onePassMatch = ({ terms }: TermTier) => {
  const [only] = terms
  if (terms.length !== 1 || only === undefined) return true
  const { phrase, prefix } = indexPhrase(only)
  return prefix || phrase.includes(' ')
}

/**
 * The best `take` messages for one match (`terms` joined by `operator`) by relevance, by recency tiers
 * when the MATCH has TIER_MATCHES matches or more (see the module comment), the plain ranked query
 * otherwise.
 */
export async function recencyRanked(
  ctx: DialectConnection,
  terms: TermTier,
  options: SearchOptions,
  take: number,
): Promise<HitRow[]> {
  const match = ftsMatch(terms)
  const onePass = onePassMatch(terms)
  let tier: Tier = { from: null, to: null, weight: 1 }
  if (isScoped(messageFilters(options))) {
    // filtered: the newest tier's bound first, so that a MATCH of few matches is ranked in FTS5's rank
    // order, which joins only the rows returned (the tier query joins every match to filter it)
    const from = await boundary(ctx, match, null, TIER_MATCHES)
    if (from === null) {
      return ctx.read<HitRow>(hitQuery('message', terms, options, take), 'Searching messages')
    }
    tier = { from, to: null, weight: 1 }
  }
  // Unfiltered, the newest tier's statement finds its bound itself: with fewer than TIER_MATCHES matches
  // it is the whole ranking (its bounded sorter is ~25% faster than FTS5's rank order, in the same order:
  // ties by rowid), and an empty answer means no match at all.
  let top: number | undefined
  const rows: HitRow[] = []
  for (let size = TIER_MATCHES * TIER_GROWTH; ; size *= TIER_GROWTH) {
    const found = await tierRows(ctx, match, options, take, tier, onePass)
    const from = found.from ?? 0
    rows.push(...found.rows)
    rows.sort((a, b) => b.score - a.score || a.item_id - b.item_id)
    rows.length = Math.min(rows.length, take)
    if (from <= 0) return rows
    const next = tier.weight * TIER_DECAY
    if (rows.length >= take) {
      top ??= await ceiling(ctx, terms.terms)
      if ((rows[take - 1] as HitRow).score >= next * top) return rows
    }
    tier = { from: (await boundary(ctx, match, from, size)) ?? 0, to: from, weight: next }
  }
}
