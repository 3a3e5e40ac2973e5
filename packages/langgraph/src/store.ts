import { EngramError, type GraphItemPut, type GraphItemRow, type Store } from '@engram/core'
import {
  BaseStore,
  type GetOperation,
  getTextAtPath,
  type IndexConfig,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from '@langchain/langgraph-checkpoint'
import { matchesFilter } from './filter.ts'
import { bytesVector, cosine, reciprocalRankFusion, vectorBytes } from './fusion.ts'

export interface EngramStoreTtl {
  /** Minutes an item lives when its put names no ttl (default: for ever). */
  defaultTtl?: number
  /** A get or search moves the expiry of what it returns to its ttl from now (default true). */
  refreshOnRead?: boolean
  /** start() sweeps expired items every this many minutes (default: no timer; call sweep() yourself). */
  sweepIntervalMinutes?: number
}

export interface EngramStoreOptions {
  /** The Engram store the items live in (any engine); EngramStore never closes it. */
  store: Store
  /**
   * Whose items these are (a user id, a tenant): every read and write is scoped to it, so another owner's
   * items are never returned, whatever the namespace. Default `''`.
   */
  owner?: string
  /**
   * The fields full-text search indexes (LangGraph paths: `text`, `author.name`, `chapters[*].body`, `$`
   * for the whole value). Default `index.fields`, else the whole value.
   */
  fields?: string[]
  /** Vectors: each item's indexed text is embedded, and a query combines both rankings (see fusion.ts). */
  index?: IndexConfig
  ttl?: EngramStoreTtl
}

/** A put with a ttl in minutes (null: never expires), beyond LangGraph's PutOperation. */
export type EngramPutOperation = PutOperation & { ttl?: number | null }

/** Candidates fetched per page when a filter runs in JavaScript over ranked or recent items. */
const CANDIDATE_PAGE = 200
/** Each ranking contributes at least this many candidates to the fusion of a hybrid search. */
const FUSION_DEPTH = 100

const SEPARATOR = '.'

const joinNamespace = (namespace: readonly string[]) => namespace.join(SEPARATOR)
const splitNamespace = (namespace: string) => (namespace === '' ? [] : namespace.split(SEPARATOR))
const itemId = (row: { namespace: string; key: string }) => JSON.stringify([row.namespace, row.key])

const isGet = (op: Operation): op is GetOperation => 'key' in op && 'namespace' in op && !('value' in op)
const isPut = (op: Operation): op is EngramPutOperation => 'value' in op
const isSearch = (op: Operation): op is SearchOperation => 'namespacePrefix' in op
const isList = (op: Operation): op is ListNamespacesOperation => 'matchConditions' in op || 'maxDepth' in op

function matches(condition: MatchCondition, namespace: readonly string[]): boolean {
  const { path, matchType } = condition
  if (path.length > namespace.length) return false
  const start = matchType === 'suffix' ? namespace.length - path.length : 0
  return path.every((label, i) => label === '*' || label === namespace[start + i])
}

/**
 * LangGraph's long-term memory (`BaseStore`) on an Engram store: namespaced JSON items with filters,
 * `limit`/`offset`, `listNamespaces` (prefix, suffix, maxDepth), a ttl with refresh on read and a sweep,
 * and `query` answered by Engram's ranked full-text search (Chinese, Japanese and Korean included). With
 * `index.embeddings`, each item also gets a vector, and a query fuses the full-text ranking with the
 * vector ranking (reciprocal-rank fusion, see fusion.ts). Every operation is scoped to `owner`.
 */
export class EngramStore extends BaseStore {
  readonly store: Store
  readonly owner: string
  private readonly fields: string[]
  private readonly index: IndexConfig | undefined
  private readonly ttl: Required<Pick<EngramStoreTtl, 'refreshOnRead'>> & EngramStoreTtl
  private sweeper: ReturnType<typeof setInterval> | undefined

  constructor(options: EngramStoreOptions) {
    super()
    if (options.store === undefined) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        'EngramStore needs a store: new EngramStore({ store: await openStore({ url }) }).',
      )
    }
    this.store = options.store
    this.owner = options.owner ?? ''
    this.index = options.index
    this.fields = options.fields ?? options.index?.fields ?? ['$']
    this.ttl = { refreshOnRead: true, ...options.ttl }
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = []
    const puts = new Map<string, EngramPutOperation>()
    for (const op of operations) {
      if (isPut(op)) {
        validateNamespace(op.namespace)
        puts.set(itemId({ namespace: joinNamespace(op.namespace), key: op.key }), op)
        results.push(undefined)
      } else if (isGet(op)) results.push(await this.getItem(op))
      else if (isSearch(op)) results.push(await this.searchItems(op))
      else if (isList(op)) results.push(await this.listNamespacesOf(op))
      else
        throw new EngramError(
          'INVALID_ARGUMENT',
          `EngramStore.batch: unknown operation ${JSON.stringify(op)}.`,
        )
    }
    if (puts.size > 0) await this.store.graph.items.put(this.owner, await this.prepare([...puts.values()]))
    return results as OperationResults<Op>
  }

  /** LangGraph's put, with a ttl in minutes (default the store's defaultTtl; null: never expires). */
  override put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
    options: { ttl?: number | null } = {},
  ): Promise<void> {
    const op: EngramPutOperation = { namespace, key, value, ...(index === undefined ? {} : { index }) }
    if (options.ttl !== undefined) op.ttl = options.ttl
    return this.batch([op]).then(() => undefined)
  }

  /** Deletes every expired item (of every owner); returns how many went. */
  sweep(): Promise<number> {
    return this.store.graph.items.sweep()
  }

  /** Starts the sweep timer when `ttl.sweepIntervalMinutes` is set. */
  override start(): void {
    const minutes = this.ttl.sweepIntervalMinutes
    if (minutes === undefined || this.sweeper !== undefined) return
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), minutes * 60_000)
    this.sweeper.unref()
  }

  override stop(): void {
    clearInterval(this.sweeper)
    this.sweeper = undefined
  }

  /** The rows of a batch's puts: the indexed text, its vector, the ttl. */
  private async prepare(ops: readonly EngramPutOperation[]): Promise<GraphItemPut[]> {
    const texts = ops.map((op) => (op.value === null || op.index === false ? null : this.textOf(op)))
    const embedded = texts.filter((text): text is string => text !== null && text !== '')
    const vectors =
      this.index !== undefined && embedded.length > 0
        ? await this.index.embeddings.embedDocuments(embedded)
        : []
    let next = 0
    return ops.map((op, i) => {
      const text = texts[i] ?? null
      const vector = this.index !== undefined && text !== null && text !== '' ? vectors[next++] : undefined
      if (vector !== undefined) this.checkDims(vector)
      return {
        namespace: joinNamespace(op.namespace),
        key: op.key,
        value: op.value === null ? null : JSON.stringify(op.value),
        text,
        embedding: vector === undefined ? null : vectorBytes(vector),
        ttlMinutes: op.ttl === undefined ? (this.ttl.defaultTtl ?? null) : op.ttl,
      }
    })
  }

  /** The text an item is found by: the indexed fields' text, one per line (`$`: the whole value's JSON). */
  private textOf(op: EngramPutOperation): string {
    const paths = Array.isArray(op.index) ? op.index : this.fields
    return paths
      .flatMap((path) => (path === '$' ? [JSON.stringify(op.value)] : getTextAtPath(op.value, path)))
      .join('\n')
  }

  private checkDims(vector: readonly number[]): void {
    if (this.index !== undefined && vector.length !== this.index.dims) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `EngramStore: the embeddings returned a vector of ${vector.length} dimensions, but index.dims is ${this.index.dims}. Set index.dims to the model's dimensions.`,
      )
    }
  }

  private toItem(row: GraphItemRow, score?: number): SearchItem {
    const item: SearchItem = {
      namespace: splitNamespace(row.namespace),
      key: row.key,
      value: JSON.parse(row.value) as Record<string, unknown>,
      createdAt: new Date(row.createdAt),
      updatedAt: new Date(row.updatedAt),
    }
    if (score !== undefined) item.score = score
    return item
  }

  private async refresh(rows: readonly GraphItemRow[]): Promise<void> {
    const expiring = rows.filter((row) => row.ttlMinutes !== null)
    if (this.ttl.refreshOnRead && expiring.length > 0)
      await this.store.graph.items.refresh(this.owner, expiring)
  }

  private async getItem(op: GetOperation): Promise<Item | null> {
    validateNamespace(op.namespace)
    const row = await this.store.graph.items.get(this.owner, joinNamespace(op.namespace), op.key)
    if (row === null) return null
    await this.refresh([row])
    return this.toItem(row)
  }

  private async searchItems(op: SearchOperation): Promise<SearchItem[]> {
    if (op.namespacePrefix.length > 0) validateNamespace(op.namespacePrefix)
    const prefix = joinNamespace(op.namespacePrefix)
    const limit = op.limit ?? 10
    const offset = op.offset ?? 0
    const query = op.query?.trim() ? op.query : undefined
    const wanted = offset + limit
    let found: { row: GraphItemRow; score?: number }[]
    if (query !== undefined && this.index !== undefined) {
      found = await this.hybrid(prefix, query, Math.max(FUSION_DEPTH, wanted), op.filter)
    } else if (op.filter === undefined) {
      const rows = await this.store.graph.items.search(this.owner, { prefix, query, limit, offset })
      await this.refresh(rows)
      return rows.map((row) => this.toItem(row, row.score ?? undefined))
    } else {
      found = (await this.filtered(prefix, query, wanted, op.filter)).map((row) => ({
        row,
        score: row.score ?? undefined,
      }))
    }
    const page = found.slice(offset, wanted)
    await this.refresh(page.map(({ row }) => row))
    return page.map(({ row, score }) => this.toItem(row, score))
  }

  /** Rows (ranked by the query, or newest first) that pass the filter, until `wanted` of them. */
  private async filtered(
    prefix: string,
    query: string | undefined,
    wanted: number,
    filter: Record<string, unknown>,
  ): Promise<GraphItemRow[]> {
    const kept: GraphItemRow[] = []
    for (let offset = 0; kept.length < wanted; offset += CANDIDATE_PAGE) {
      const rows = await this.store.graph.items.search(this.owner, {
        prefix,
        query,
        limit: CANDIDATE_PAGE,
        offset,
      })
      for (const row of rows) {
        if (matchesFilter(JSON.parse(row.value) as Record<string, unknown>, filter)) kept.push(row)
      }
      if (rows.length < CANDIDATE_PAGE) break
    }
    return kept
  }

  /**
   * Full-text and vector rankings of the items under `prefix`, fused (fusion.ts). The vector ranking scores
   * every item with a vector under the prefix (exact cosine similarity, no approximate index).
   */
  private async hybrid(
    prefix: string,
    query: string,
    depth: number,
    filter: Record<string, unknown> | undefined,
  ): Promise<{ row: GraphItemRow; score: number }[]> {
    const index = this.index as IndexConfig
    const [lexical, queryVector] = await Promise.all([
      filter === undefined
        ? this.store.graph.items.search(this.owner, { prefix, query, limit: depth })
        : this.filtered(prefix, query, depth, filter),
      index.embeddings.embedQuery(query),
    ])
    this.checkDims(queryVector)
    const vectors: { row: GraphItemRow; similarity: number }[] = []
    for (let offset = 0; ; offset += CANDIDATE_PAGE) {
      const rows = await this.store.graph.items.search(this.owner, {
        prefix,
        limit: CANDIDATE_PAGE,
        offset,
        withEmbedding: true,
      })
      for (const row of rows) {
        if (filter !== undefined && !matchesFilter(JSON.parse(row.value) as Record<string, unknown>, filter))
          continue
        vectors.push({ row, similarity: cosine(queryVector, bytesVector(row.embedding as Uint8Array)) })
      }
      if (rows.length < CANDIDATE_PAGE) break
    }
    vectors.sort((a, b) => b.similarity - a.similarity)
    const semantic = vectors.slice(0, depth).map(({ row }) => row)
    const rows = new Map([...lexical, ...semantic].map((row) => [itemId(row), row]))
    const scores = reciprocalRankFusion([lexical.map(itemId), semantic.map(itemId)])
    return [...scores]
      .sort((a, b) => b[1] - a[1])
      .map(([id, score]) => ({ row: rows.get(id) as GraphItemRow, score }))
  }

  private async listNamespacesOf(op: ListNamespacesOperation): Promise<string[][]> {
    let namespaces = (await this.store.graph.items.namespaces(this.owner)).map(splitNamespace)
    const conditions = op.matchConditions ?? []
    namespaces = namespaces.filter((namespace) =>
      conditions.every((condition) => matches(condition, namespace)),
    )
    if (op.maxDepth !== undefined) {
      const depth = op.maxDepth
      namespaces = [
        ...new Map(namespaces.map((ns) => ns.slice(0, depth)).map((ns) => [joinNamespace(ns), ns])).values(),
      ]
    }
    namespaces.sort((a, b) => {
      const x = joinNamespace(a)
      const y = joinNamespace(b)
      return x < y ? -1 : x > y ? 1 : 0
    })
    const offset = op.offset ?? 0
    return namespaces.slice(offset, offset + (op.limit ?? namespaces.length))
  }
}
