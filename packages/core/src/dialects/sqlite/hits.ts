/** SQLite's hit query over the FTS5 indexes (migration 0001), its MATCH built from the terms (match.ts). */
import { hitParts } from '../../search-sql.ts'
import type { Dialect } from '../dialect.ts'
import { sliceColumn } from './indexed-text.ts'
import { ftsMatch } from './match.ts'

// Relevance must be `rank` alone: then FTS5 yields rows best-first and SQLite stops after `LIMIT` rows
// instead of joining, scoring and snippeting every match (any extra sort key brings that back).
const ORDER = {
  relevance: 'rank',
  newest: 'timestamp DESC, item_id DESC',
  oldest: 'timestamp ASC, item_id ASC',
} as const

/** The SQL of one half of a search (exported for the benchmark, which runs it on a raw connection). */
export const hitQuery: Dialect['hits'] = (kind, match, options, take, after) => {
  const fts = kind === 'message' ? 'messages_fts' : 'episodes_fts'
  const { table, time, filters, sort } = hitParts(kind, options, after)
  return {
    sql: `SELECT t.session_id, t.id AS item_id, ${kind === 'message' ? 't.role' : "'episode'"} AS role, ${time} AS timestamp,
        s.source, -rank AS score, NULL AS snippet,
        ${sliceColumn(kind)} AS excerpt
      FROM ${fts} JOIN ${table} t ON t.id = ${fts}.rowid JOIN sessions s ON s.id = t.session_id
      WHERE ${fts} MATCH ? ${filters.where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${ORDER[sort]} LIMIT ?`,
    params: [ftsMatch(match), ...filters.params, take],
  }
}
