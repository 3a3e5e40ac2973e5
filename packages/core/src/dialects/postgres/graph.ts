import type { SqlValue, Statement } from '../../driver.ts'
import type { GraphItemSearchSql } from '../dialect.ts'
import { tsquery } from './search.ts'

/**
 * PostgreSQL's SQL of the graph tables (store/graph-checkpoints.ts, store/graph-items.ts), for
 * `@engram/langgraph`.
 */

/**
 * The text of the metadata's top-level key `name`, read as `json` (which keeps the stored text as it is),
 * equals the canonical JSON of the value. PostgreSQL's JSON functions refuse a \u0000 escape, so both
 * sides read it as \ufffd (still valid JSON whatever precedes it): a filter cannot tell apart values that
 * differ only by NUL characters there.
 */
export function graphMetadataMatch(name: string, json: string): { sql: string; params: SqlValue[] } {
  return {
    sql: `(replace(metadata, '\\u0000', '\\ufffd')::json -> CAST(? AS text))::text = ?`,
    params: [name, json.replaceAll('\\u0000', '\\ufffd')],
  }
}

/** The items' engram_search tsvector (its GIN index), ranked by ts_rank_cd. */
export function graphItemSearch(search: GraphItemSearchSql): Statement {
  const query = tsquery(search.match)
  return {
    sql: `SELECT ${search.columns}, ts_rank_cd(i.search_vector, t.q) AS score
      FROM graph_items i CROSS JOIN (SELECT ${query.sql} AS q) t
      WHERE i.search_vector @@ t.q AND ${search.where.join(' AND ')}
      ORDER BY score DESC, i.id DESC LIMIT ${search.limit} OFFSET ${search.offset}`,
    params: [...query.params, ...search.params],
  }
}
