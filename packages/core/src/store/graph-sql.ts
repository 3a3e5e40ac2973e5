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
 * SQLite: the top-level key `name` of a checkpoint's metadata holds a value equal to `value` as JSON: same
 * JSON type, and the same atom (text, number, boolean) or, for an object or array, the same minified text.
 */
function sqliteMetadataMatch(name: string, value: unknown): Condition {
  const json = JSON.stringify(value) ?? 'null'
  return {
    sql: `EXISTS (SELECT 1 FROM json_each(metadata) m WHERE m.key = ? AND m.type = json_type(?)
      AND (m.type = 'null' OR m.atom = json_extract(?, '$') OR (m.atom IS NULL AND m.value = json(?))))`,
    params: [name, json, json, json],
  }
}

/** PostgreSQL: jsonb equality of the metadata's top-level key `name` and `value`. */
function postgresMetadataMatch(name: string, value: unknown): Condition {
  return {
    sql: '(metadata::jsonb -> CAST(? AS text)) = CAST(? AS jsonb)',
    params: [name, JSON.stringify(value) ?? 'null'],
  }
}

const METADATA_MATCH: Record<Dialect, (name: string, value: unknown) => Condition> = {
  sqlite: sqliteMetadataMatch,
  postgres: postgresMetadataMatch,
}

/** The condition that a checkpoint's metadata has `name` equal to `value`, in the engine's SQL. */
export const metadataMatch = (dialect: Dialect, name: string, value: unknown): Condition =>
  METADATA_MATCH[dialect](name, value)

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
