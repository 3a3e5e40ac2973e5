/**
 * What a database engine brings to the store (kysely's pattern): one object per engine
 * (dialects/sqlite, dialects/postgres) owns that engine's SQL — search hits from structured terms, term
 * counts, id prefixes, day buckets, the append, the search index's rebuild and integrity check, opening
 * and migrating — and the store calls it without ever asking which engine it is. Drivers only carry
 * statements; they never import a dialect.
 */
import type { SQL, SQLWrapper } from 'drizzle-orm'
import type {
  DialectName,
  DriverCapabilities,
  QueryResult,
  Row,
  SqlValue,
  Statement,
  StorageDriver,
} from '../driver.ts'
import type { SearchTerm } from '../search/query.ts'
import type { TermTier } from '../search/tiers.ts'
import type { ResolvedStoreSettings } from '../store-options.ts'
import type { IntegrityReport, Role, SchemaMigrations, SearchOptions } from '../types.ts'

/** What a dialect runs its statements through: the store's context (retries, error mapping, closing). */
export interface DialectConnection {
  read<R = Row>(statement: Statement, action: string): Promise<R[]>
  run<R = Row>(statement: Statement, action: string): Promise<QueryResult<R>>
  /** Runs one statement that is safe to run again as it is, retried like a write. */
  writeIdempotent<R = Row>(statement: Statement, action: string): Promise<QueryResult<R>>
  /** Runs the statements as one transaction, retried as a whole while the database is busy. */
  write(statements: readonly Statement[], action: string): Promise<QueryResult[]>
  /** Runs `work` so that a lock held elsewhere fails at once instead of waiting. */
  withoutWaiting<T>(work: () => Promise<T>): Promise<T>
  /** The connection's driver: whether its statements share one connection (temporary tables last). */
  readonly driver: { readonly capabilities: DriverCapabilities }
}

/** One hit row of a search half, the same columns on every engine. */
export interface HitRow {
  session_id: string
  item_id: number
  role: Role | 'episode'
  timestamp: number
  source: string
  /** A snippet made already (a neighbour's start of text), or null when `excerpt` is to be snippeted. */
  snippet: string | null
  /** The start of the row's indexed text, for an excerpt snippet (its first SLICE_CHARS + 1 characters). */
  excerpt: string | null
  score: number
}

/**
 * How a message's index text reaches the engine's search index. The index text is messageSearchText's
 * (search/index-text.ts): null when the content is indexed as it is.
 */
export interface MessageIndexing {
  /** The row's `search_text` for that index text; `nul`: its content or tool calls hold a NUL. */
  column(searchText: string | null, nul: boolean): string | null
}

/**
 * An engine that indexes new messages after their append (SQLite, in batches: dialects/sqlite/unindexed.ts).
 * Until then a message is stored but not found: the store indexes the waiting ones before every search.
 */
export interface DeferredIndex {
  /** The table that lists the waiting messages: a schema without it (an older migrations folder) has none. */
  readonly table: string
  /** One row with `listed`: 1 when a message waits for its index entry. */
  readonly waiting: Statement
  /**
   * Indexes the waiting messages, each batch one transaction run by `write` (false when the database was
   * locked: the rest keeps waiting). Returns whether none is left waiting.
   */
  index(
    db: DialectConnection,
    write: (statements: readonly Statement[]) => Promise<boolean>,
    action: string,
  ): Promise<boolean>
}

/**
 * A message whose index text its writer hands to the index (MessageIndexing.column gave ''), with the
 * columns it was computed from as they were read (a rebuild hands it only to the row still holding them).
 */
export interface HandedIndexText {
  id: number
  searchText: string
  content: string | null
  toolCalls: string | null
}

/** Where a keyset page starts: after this (timestamp, id) of episodes (phase 0) or messages (phase 1). */
export interface After {
  phase: 0 | 1
  timestamp: number
  id: number
}

/** A page of a ranked full-text search of LangGraph items (store/graph-items.ts), on alias `i` of graph_items. */
export interface GraphItemSearchSql {
  /** The query's terms, any of which matches. */
  match: TermTier
  /** The item columns to select. */
  columns: string
  /** Conditions, and their parameters in order. */
  where: readonly string[]
  params: readonly SqlValue[]
  limit: number
  offset: number
}

export interface Dialect {
  readonly name: DialectName

  /** Checks the database is one the store may use, applies the connection's settings and migrates it. */
  prepare(driver: StorageDriver, settings: ResolvedStoreSettings): Promise<SchemaMigrations>

  /**
   * One row `{ present }` (1 or true) when the database has the table `name`, 0 or false when not: the
   * tables of a migration a custom migrations folder may lack (engram_pending_tasks).
   */
  hasTable(name: string): Statement

  /**
   * The driver as the store runs its statements through it: what the engine cannot store as it is
   * (NUL in PostgreSQL text) encoded on the way in and decoded on the way out, losslessly.
   */
  storeDriver(driver: StorageDriver): StorageDriver

  /**
   * One half of a search (messages or episodes) as one statement: the rows matching `match` under the
   * options' filters, in the options' order, at most `take`.
   */
  hits(
    kind: 'message' | 'episode',
    match: TermTier,
    options: SearchOptions,
    take: number,
    after?: After,
  ): Statement

  /**
   * A keyword search's rows: the episodes (when `withEpisodes`) and the messages, by relevance in term
   * tiers (search/tiers.ts) or in time order, at most `take` of each.
   */
  keywordRows(
    db: DialectConnection,
    terms: readonly SearchTerm[],
    options: SearchOptions,
    take: number,
    withEpisodes: boolean,
    after?: After,
  ): Promise<{ episodes: HitRow[]; messages: HitRow[] }>

  /** The best `take` messages by relevance for one match (a question's words): what keywordRows ranks. */
  rankedMessages(
    db: DialectConnection,
    terms: readonly SearchTerm[],
    options: SearchOptions,
    take: number,
  ): Promise<HitRow[]>

  /** Whether some message (not a tool result) of the store has `name` as its speaker. */
  isSpeaker(db: DialectConnection, name: string): Promise<boolean>

  /** A condition that the text column `column` starts with `prefix`: SQL with one `?` and its parameter. */
  idPrefix(column: string, prefix: string): { sql: string; param: SqlValue }

  /** The UTC day (`YYYY-MM-DD`) of a column of milliseconds since the epoch. */
  utcDay(column: SQLWrapper): SQL<string>

  /**
   * Appends in as few statements as the engine takes (one up to its row limit, then one transaction of such
   * statements): the ids of the messages written, in order; none when the session does not exist. Null on
   * an engine whose appends are a transaction of one INSERT per message.
   */
  readonly appendRows:
    | ((
        db: DialectConnection,
        sessionId: string,
        columns: readonly string[],
        rows: SqlValue[][],
      ) => Promise<number[]>)
    | null

  /**
   * The SQL of the text row `t` (a message or an episode) is indexed as: what snippets are made from
   * (its start, and an excerpt of a long row).
   */
  indexedText(kind: 'message' | 'episode'): string

  /** How a message's index text reaches the search index. */
  readonly messageIndex: MessageIndexing

  /** How new messages are indexed after their append, or null where they are indexed as they are written. */
  readonly deferredIndex: DeferredIndex | null

  /**
   * Statements that rebuild the search index in one transaction: `updates` set the rows' search texts
   * (messages' as messageIndex.column gives them, episodes'), `handed` the messages whose index text the
   * index is given directly. The texts were read before the transaction: rows other connections add or
   * change after that keep the entries their writers gave them, and rows they delete are not indexed again.
   */
  rebuildSearchIndex(updates: readonly Statement[], handed: readonly HandedIndexText[]): Statement[]

  /** Checks the database and its search index; reports, never throws. */
  checkIntegrity(db: DialectConnection): Promise<IntegrityReport>

  /**
   * The condition that a LangGraph checkpoint's metadata has the top-level key `name` equal to the value of
   * canonical JSON `json`.
   */
  graphMetadataMatch(name: string, json: string): { sql: string; params: SqlValue[] }

  /** A ranked full-text search of LangGraph items (higher `score` is better). */
  graphItemSearch(search: GraphItemSearchSql): Statement
}
