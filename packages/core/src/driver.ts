/** A value SQLite can bind: text, number, integer, null or a blob. */
export type SqlValue = string | number | bigint | null | Uint8Array

/** The database engines the store has a schema, migrations and SQL for. */
export type DialectName = 'sqlite' | 'postgres'

/** One SQL statement with its positional `?` parameters. */
export interface Statement {
  sql: string
  params?: readonly SqlValue[]
  /**
   * The store runs this text often (a few variants at most): a driver may prepare it once per connection
   * and skip parsing and planning it on later calls (PostgreSQL: a named statement). Others ignore it.
   */
  prepare?: boolean
}

/** A result row keyed by column name. */
export type Row = Record<string, unknown>

/** What a statement returned: its rows and how many rows it changed. */
export interface QueryResult<R = Row> {
  /** Rows as plain objects keyed by column name; empty for statements that return nothing. */
  rows: R[]
  /** Rows changed by an INSERT, UPDATE or DELETE (for statements with RETURNING: rows returned). */
  changes: number
}

/** What kind of database a driver talks to, which decides the pragmas and checkpoints the store runs. */
export interface DriverCapabilities {
  /** The database is a local file, so pragmas (WAL, synchronous, busy_timeout) and checkpoints apply. */
  localFile: boolean
  /** The connection talks to a server over the network (a remote database or an embedded replica's primary). */
  remote: boolean
}

/**
 * The only place that knows one SQLite client from another. Implementations hold a single connection,
 * cache prepared statements by SQL text and do no schema or pragma work of their own.
 */
export interface StorageDriver {
  readonly name: string
  readonly capabilities: DriverCapabilities
  /**
   * The SQL the database speaks, which picks the store's schema, migrations and search queries: `sqlite`
   * (the default when absent) or `postgres`. Statements reach every driver with `?` parameters.
   */
  readonly dialect?: DialectName

  /** Runs one statement in autocommit mode. */
  execute<R = Row>(statement: Statement): Promise<QueryResult<R>>

  /**
   * Runs the statements in order inside one write transaction (`BEGIN IMMEDIATE`), committing only if
   * all succeed and rolling back otherwise. Results come back in statement order.
   */
  batch(statements: readonly Statement[]): Promise<QueryResult[]>

  /** Closes the connection; later calls fail. */
  close(): Promise<void>
}
