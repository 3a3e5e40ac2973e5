import type { SqlValue, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { toIndexText } from '../search/cjk.ts'
import { parseSearchQuery } from '../search/query.ts'
import type { StoreContext } from './context.ts'

/**
 * LangGraph's long-term store on the store's tables (graph_items, schema/graph.ts), for `@engram/langgraph`'s
 * EngramStore: JSON items by owner, namespace and key. Every read and write names its owner, so one
 * owner's items never reach another's reads. Expired items (expires_at passed) are invisible to reads
 * before a sweep deletes them. The text to search is indexed by the store's own full-text machinery
 * (FTS5 with the CJK split on SQLite, the engram_search tsvector on PostgreSQL).
 */

export interface GraphItemRow {
  namespace: string
  key: string
  /** The item's value as JSON text. */
  value: string
  createdAt: number
  updatedAt: number
  ttlMinutes: number | null
  expiresAt: number | null
  /** The item's vector (float32, little-endian), when it has one. */
  embedding: Uint8Array | null
  /** The full-text rank of a search with a query (higher is better), else null. */
  score: number | null
}

export interface GraphItemPut {
  namespace: string
  key: string
  /** The value as JSON text; null deletes the item. */
  value: string | null
  /** The text full-text search finds the item by (null: not searchable). */
  text?: string | null
  embedding?: Uint8Array | null
  /** Minutes the item lives after it is written (or read, with refresh); null: for ever. */
  ttlMinutes?: number | null
}

export interface GraphItemSearch {
  /** Items whose namespace is this one or below it (labels joined by `.`); `''` for every namespace. */
  prefix: string
  /** Ranked full-text search (any of the words, BM25 / ts_rank_cd); absent: newest first. */
  query?: string
  limit: number
  offset?: number
  /** Only items that have a vector (for vector scoring). */
  withEmbedding?: boolean
}

/** A namespace prefix as SQL: the namespace itself or one below it (`a.b` and `a.b.c`, never `a.bc`). */
function prefixCondition(prefix: string): { sql: string; params: SqlValue[] } {
  if (prefix === '') return { sql: '1 = 1', params: [] }
  const below = `${prefix}.`
  return { sql: '(namespace = ? OR substr(namespace, 1, ?) = ?)', params: [prefix, below.length, below] }
}

const LIVE = '(expires_at IS NULL OR expires_at > ?)'

const COLUMNS = 'id, namespace, key, value, created_at, updated_at, ttl_minutes, expires_at, embedding'

function bytes(value: unknown): Uint8Array | null {
  if (value === null || value === undefined) return null
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return null
}

const optionalNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value))

function decodeItem(row: Record<string, unknown>): GraphItemRow {
  return {
    namespace: String(row.namespace),
    key: String(row.key),
    value: String(row.value),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ttlMinutes: optionalNumber(row.ttl_minutes),
    expiresAt: optionalNumber(row.expires_at),
    embedding: bytes(row.embedding),
    score: optionalNumber(row.score),
  }
}

function checkTtl(ttl: number | null | undefined): number | null {
  if (ttl === null || ttl === undefined) return null
  if (!(typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0)) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Saving a graph item: ttl must be a number of minutes above 0 (got ${String(ttl)}). Pass null or leave it out for an item that never expires.`,
    )
  }
  return ttl
}

/** Writes and deletes items in one transaction; a put of an existing key keeps its creation time. */
export async function putItems(
  ctx: StoreContext,
  owner: string,
  puts: readonly GraphItemPut[],
): Promise<void> {
  if (puts.length === 0) return
  const now = Date.now()
  const statements: Statement[] = puts.map((put) => {
    if (put.value === null) {
      return {
        sql: 'DELETE FROM graph_items WHERE owner = ? AND namespace = ? AND key = ?',
        params: [owner, put.namespace, put.key],
      }
    }
    const ttl = checkTtl(put.ttlMinutes)
    // NUL separates words here (PostgreSQL text cannot hold it; the index needs no copy of it)
    const text = put.text?.replaceAll('\0', ' ') ?? null
    return {
      sql: `INSERT INTO graph_items (owner, namespace, key, value, search_text, embedding, created_at, updated_at, ttl_minutes, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (owner, namespace, key) DO UPDATE SET value = excluded.value, search_text = excluded.search_text,
          embedding = excluded.embedding, updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes,
          expires_at = excluded.expires_at`,
      params: [
        owner,
        put.namespace,
        put.key,
        put.value,
        text === null ? null : (toIndexText(text) ?? text),
        put.embedding ?? null,
        now,
        now,
        ttl,
        ttl === null ? null : now + Math.round(ttl * 60_000),
      ],
    }
  })
  await ctx.write(statements, 'Saving graph items')
}

/** Moves the expiry of the items (that have a ttl) to their ttl from now: a read that refreshes. */
export async function refreshItems(
  ctx: StoreContext,
  owner: string,
  items: readonly { namespace: string; key: string }[],
): Promise<void> {
  if (items.length === 0) return
  const now = Date.now()
  await ctx.write(
    items.map((item) => ({
      sql: `UPDATE graph_items SET expires_at = ? + CAST(ttl_minutes * 60000 AS BIGINT)
        WHERE owner = ? AND namespace = ? AND key = ? AND ttl_minutes IS NOT NULL AND ${LIVE}`,
      params: [now, owner, item.namespace, item.key, now],
    })),
    'Refreshing the ttl of graph items',
  )
}

/** The live item, or null. */
export async function getItem(
  ctx: StoreContext,
  owner: string,
  namespace: string,
  key: string,
): Promise<GraphItemRow | null> {
  const [row] = await ctx.read(
    {
      sql: `SELECT ${COLUMNS}, NULL AS score FROM graph_items WHERE owner = ? AND namespace = ? AND key = ? AND ${LIVE}`,
      params: [owner, namespace, key, Date.now()],
    },
    'Reading a graph item',
  )
  return row === undefined ? null : decodeItem(row)
}

/** Live items under a namespace prefix: ranked by the query's full-text match, or newest first. */
export async function searchItems(
  ctx: StoreContext,
  owner: string,
  search: GraphItemSearch,
): Promise<GraphItemRow[]> {
  const limit = pageNumber(search.limit, 'limit')
  const offset = pageNumber(search.offset ?? 0, 'offset')
  const prefix = prefixCondition(search.prefix)
  const where = [
    'i.owner = ?',
    prefix.sql.replaceAll('namespace', 'i.namespace'),
    LIVE.replaceAll('expires_at', 'i.expires_at'),
  ]
  if (search.withEmbedding) where.push('i.embedding IS NOT NULL')
  const params: SqlValue[] = [owner, ...prefix.params, Date.now()]
  const columns = COLUMNS.split(', ')
    .map((column) => `i.${column}`)
    .join(', ')
  if (search.query !== undefined && search.query.trim() !== '') {
    const terms = parseSearchQuery(search.query)
    if (terms.length === 0) return []
    const match = { terms, operator: 'OR' } as const
    const statement = ctx.dialect.graphItemSearch({ match, columns, where, params, limit, offset })
    return (await ctx.read(statement, 'Searching graph items')).map(decodeItem)
  }
  const rows = await ctx.read(
    {
      sql: `SELECT ${columns}, NULL AS score FROM graph_items i WHERE ${where.join(' AND ')}
        ORDER BY i.updated_at DESC, i.id DESC LIMIT ${limit} OFFSET ${offset}`,
      params,
    },
    'Listing graph items',
  )
  return rows.map(decodeItem)
}

function pageNumber(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Searching graph items: ${name} must be a whole number ≥ 0 (got ${String(value)}). Pass e.g. ${name}: 10.`,
    )
  }
  return value
}

/** The distinct namespaces of the owner's live items, in text order. */
export async function listNamespaces(ctx: StoreContext, owner: string): Promise<string[]> {
  const rows = await ctx.read(
    {
      sql: `SELECT DISTINCT namespace FROM graph_items WHERE owner = ? AND ${LIVE} ORDER BY namespace`,
      params: [owner, Date.now()],
    },
    'Listing graph namespaces',
  )
  return rows.map((row) => String(row.namespace))
}

/** Deletes every expired item (of every owner); returns how many went. */
export async function sweepItems(ctx: StoreContext): Promise<number> {
  const [result] = await ctx.write(
    [
      {
        sql: 'DELETE FROM graph_items WHERE expires_at IS NOT NULL AND expires_at <= ?',
        params: [Date.now()],
      },
    ],
    'Sweeping expired graph items',
  )
  return result?.changes ?? 0
}
