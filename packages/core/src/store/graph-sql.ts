import { tsquery } from '../dialects/postgres/search.ts'
import type { Dialect, SqlValue, Statement } from '../driver.ts'

/**
 * The engine-specific SQL of the graph tables (store/graph-checkpoints.ts, store/graph-items.ts): one small
 * function per engine.
 */

interface Condition {
  sql: string
  params: SqlValue[]
}

/**
 * SQLite: the top-level key `name` of a checkpoint's metadata holds the value whose canonical JSON is `json`:
 * the same JSON type, and the same atom (text, number, boolean) or, for an object or array, the same JSON
 * (stored metadata is canonical too, see graph-checkpoints.ts, so key order never matters).
 */
function sqliteMetadataMatch(name: string, json: string): Condition {
  return {
    sql: `EXISTS (SELECT 1 FROM json_each(metadata) m WHERE m.key = ? AND m.type = json_type(?)
      AND (m.type = 'null' OR m.atom = json_extract(?, '$') OR (m.atom IS NULL AND m.value = json(?))))`,
    params: [name, json, json, json],
  }
}

/**
 * PostgreSQL: the text of the metadata's top-level key `name`, read as `json` (which keeps the stored text
 * as it is), equals the canonical JSON of the value. PostgreSQL's JSON functions refuse a \u0000 escape, so
 * both sides read it as \ufffd (still valid JSON whatever precedes it): a filter cannot tell apart values
 * that differ only by NUL characters there.
 */
function postgresMetadataMatch(name: string, json: string): Condition {
  return {
    sql: `(replace(metadata, '\\u0000', '\\ufffd')::json -> CAST(? AS text))::text = ?`,
    params: [name, json.replaceAll('\\u0000', '\\ufffd')],
  }
}

const METADATA_MATCH: Record<Dialect, (name: string, json: string) => Condition> = {
  sqlite: sqliteMetadataMatch,
  postgres: postgresMetadataMatch,
}

/** The condition that a checkpoint's metadata has `name` equal to the value of canonical JSON `json`. */
export const metadataMatch = (dialect: Dialect, name: string, json: string): Condition =>
  METADATA_MATCH[dialect](name, json)

/** A page of a ranked full-text search of graph items: what each engine's search function is given. */
interface ItemSearch {
  /** The FTS5 MATCH expression of the query (search/query.ts). */
  match: string
  /** The item columns to select, on alias `i`. */
  columns: string
  /** Conditions on alias `i`, and their parameters in order. */
  where: readonly string[]
  params: readonly SqlValue[]
  limit: number
  offset: number
}

/** SQLite: FTS5 over graph_items_fts, ranked by BM25 (negated, so a higher score is a better match). */
function sqliteItemSearch(search: ItemSearch): Statement {
  return {
    sql: `SELECT ${search.columns}, -bm25(graph_items_fts) AS score
      FROM graph_items_fts JOIN graph_items i ON i.id = graph_items_fts.rowid
      WHERE graph_items_fts MATCH ? AND ${search.where.join(' AND ')}
      ORDER BY bm25(graph_items_fts), i.id DESC LIMIT ${search.limit} OFFSET ${search.offset}`,
    params: [search.match, ...search.params],
  }
}

/** PostgreSQL: the items' engram_search tsvector (its GIN index), ranked by ts_rank_cd. */
function postgresItemSearch(search: ItemSearch): Statement {
  const query = tsquery(search.match)
  return {
    sql: `SELECT ${search.columns}, ts_rank_cd(i.search_vector, t.q) AS score
      FROM graph_items i CROSS JOIN (SELECT ${query.sql} AS q) t
      WHERE i.search_vector @@ t.q AND ${search.where.join(' AND ')}
      ORDER BY score DESC, i.id DESC LIMIT ${search.limit} OFFSET ${search.offset}`,
    params: [...query.params, ...search.params],
  }
}

const ITEM_SEARCH: Record<Dialect, (search: ItemSearch) => Statement> = {
  sqlite: sqliteItemSearch,
  postgres: postgresItemSearch,
}

/** A ranked full-text search of graph items in the engine's SQL. */
export const itemSearch = (dialect: Dialect, search: ItemSearch): Statement => ITEM_SEARCH[dialect](search)
