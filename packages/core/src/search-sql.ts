/**
 * The SQL both dialects' searches share (standard SQL, no full-text syntax): the filters of
 * SearchOptions, keyset paging and the excerpts of hits. Each dialect adds its own match.
 */

import type { After } from './dialects/dialect.ts'
import type { SqlValue, Statement } from './driver.ts'
import { EXCERPT_CHARS } from './search/excerpt.ts'
import type { SearchOptions } from './types.ts'

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

/**
 * The ids of a session's compression chain: the session, its ancestors and its descendants, following
 * `parent_session_id` only between sessions of the same user (as getLineage does). Two parameters: the id.
 */
const LINEAGE_IDS = `WITH RECURSIVE
    up(id, user_id, depth) AS (
      SELECT id, user_id, 0 FROM sessions WHERE id = ?
      UNION ALL
      SELECT p.id, p.user_id, up.depth + 1 FROM up JOIN sessions child ON child.id = up.id
        JOIN sessions p ON p.id = child.parent_session_id AND p.user_id IS NOT DISTINCT FROM up.user_id
      WHERE up.depth < 10000),
    down(id, user_id, depth) AS (
      SELECT id, user_id, 0 FROM sessions WHERE id = ?
      UNION ALL
      SELECT c.id, c.user_id, down.depth + 1 FROM down
        JOIN sessions c ON c.parent_session_id = down.id AND c.user_id IS NOT DISTINCT FROM down.user_id
      WHERE down.depth < 10000)
  SELECT id FROM up UNION SELECT id FROM down`

/** The filters every half of a search shares: session, lineage, user, source and time (`t` joined with `s`). */
function sessionFilters(options: SearchOptions, timeColumn: string): Filters {
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

/**
 * The filters of a search over messages (`t`, joined with its session `s`): the session filters, the role
 * and, unless the search includes it, no retrieval traffic (a column of the row the join reads anyway).
 */
export function messageFilters(options: SearchOptions): Filters {
  const filters = sessionFilters(options, 't.timestamp')
  filters.addIn('t.role', asList(options.role))
  if (options.includeRetrieval !== true) filters.add(NOT_RETRIEVAL)
  return filters
}

/** The filter that leaves the agent's retrieval traffic out of a message search. */
export const NOT_RETRIEVAL = 't.retrieval IS NULL'

/** Whether a message search is scoped by more than the retrieval filter (session, user, source, time, role). */
export const isScoped = (filters: Filters) => filters.where.some((where) => where !== NOT_RETRIEVAL)

/**
 * What a half of a search reads, in any dialect: its table (`t`, joined with its session `s`), time column,
 * sort, and the filters of the options with the keyset of the page.
 */
export function hitParts(kind: 'message' | 'episode', options: SearchOptions, after?: After) {
  const table = kind === 'message' ? 'messages' : 'episodes'
  const time = kind === 'message' ? 't.timestamp' : 't.created_at'
  const filters = kind === 'message' ? messageFilters(options) : sessionFilters(options, time)
  const sort = options.sort ?? 'relevance'
  const keyset = sort === 'relevance' ? undefined : keysetFilter(kind, time, sort, after)
  if (keyset) filters.add(keyset.where, ...keyset.params)
  return { table, time, filters, sort }
}

/**
 * The EXCERPT_CHARS excerpts of rows whose slice could not tell their snippet; `indexedText` is the
 * dialect's SQL of the text row `t` is indexed as (Dialect.indexedText).
 */
export function excerptQuery(
  kind: 'message' | 'episode',
  ids: readonly number[],
  indexedText: string,
): Statement {
  return {
    sql: `SELECT t.id, substr(${indexedText}, 1, ${EXCERPT_CHARS}) AS excerpt
      FROM ${kind === 'message' ? 'messages' : 'episodes'} t WHERE t.id IN (${ids.map(() => '?').join(', ')})`,
    params: ids,
  }
}

function keysetFilter(hit: 'message' | 'episode', time: string, order: 'newest' | 'oldest', after?: After) {
  if (!after) return undefined
  const phase = hit === 'episode' ? 0 : 1
  if (after.phase > phase) return { where: 'FALSE', params: [] }
  if (after.phase < phase) return undefined
  return {
    where: `(${time}, t.id) ${order === 'newest' ? '<' : '>'} (?, ?)`,
    params: [after.timestamp, after.id],
  }
}
