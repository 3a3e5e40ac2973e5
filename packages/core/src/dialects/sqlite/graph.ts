import type { SqlValue, Statement } from '../../driver.ts'
import type { GraphItemSearchSql } from '../dialect.ts'
import { ftsMatch } from './match.ts'

/**
 * SQLite's SQL of the graph tables (store/graph-checkpoints.ts, store/graph-items.ts), for
 * `@engram/langgraph`.
 */

/**
 * The top-level key `name` of a checkpoint's metadata holds the value whose canonical JSON is `json`: the
 * same JSON type, and the same atom (text, number, boolean) or, for an object or array, the same JSON
 * (stored metadata is canonical too, see graph-checkpoints.ts, so key order never matters).
 */
export function graphMetadataMatch(name: string, json: string): { sql: string; params: SqlValue[] } {
  return {
    sql: `EXISTS (SELECT 1 FROM json_each(metadata) m WHERE m.key = ? AND m.type = json_type(?)
      AND (m.type = 'null' OR m.atom = json_extract(?, '$') OR (m.atom IS NULL AND m.value = json(?))))`,
    params: [name, json, json, json],
  }
}

/** FTS5 over graph_items_fts, ranked by BM25 (negated, so a higher score is a better match). */
export function graphItemSearch(search: GraphItemSearchSql): Statement {
  return {
    sql: `SELECT ${search.columns}, -bm25(graph_items_fts) AS score
      FROM graph_items_fts JOIN graph_items i ON i.id = graph_items_fts.rowid
      WHERE graph_items_fts MATCH ? AND ${search.where.join(' AND ')}
      ORDER BY bm25(graph_items_fts), i.id DESC LIMIT ${search.limit} OFFSET ${search.offset}`,
    params: [ftsMatch(search.match), ...search.params],
  }
}
