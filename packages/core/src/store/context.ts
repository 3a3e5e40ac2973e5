import { setTimeout as sleep } from 'node:timers/promises'
import { drizzleOver, type EngramDatabase } from '../database.ts'
import type { DeferredIndex, Dialect } from '../dialects/dialect.ts'
import type { QueryResult, Row, Statement, StorageDriver } from '../driver.ts'
import { EngramError, isBusyError, toEngramError } from '../errors.ts'
import type { RetryPolicy } from '../store-options.ts'

/** A write every this many runs a passive WAL checkpoint, so the WAL stays short under many writers. */
const CHECKPOINT_EVERY_WRITES = 1000
/**
 * Messages a connection appends before it indexes the waiting ones, where the engine indexes them after
 * their append (Dialect.deferredIndex): FTS5 then writes a segment per batch instead of per append.
 */
export const INDEX_BATCH = 64
/**
 * Or once their text reaches this many characters: FTS5's cost per segment matters little beside a long
 * text's own, and it bounds what a search indexes before it runs and what a full disk leaves unfound.
 */
const INDEX_BATCH_CHARS = 32_000

const INDEXING = 'Indexing new messages'

const closedError = () =>
  new EngramError('STORE_CLOSED', 'The store is closed. Open a new one with openStore().')

/**
 * What the store's modules share: reads, retried atomic writes, single statements run as they are, and the
 * open/closing/closed state. Public operations run through `operation`, so `close()` can wait for them.
 */
/**
 * Runs `work` again, after a jittered pause, while it fails because the file is locked (or the server asked
 * for a retry), at most `retry.attempts` times; then, or on any other error, throws that error as it is.
 */
export async function whileBusy<T>(work: () => Promise<T>, retry: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      if (!isBusyError(error) || attempt >= retry.attempts) throw error
      await sleep(retry.minDelayMs + Math.random() * (retry.maxDelayMs - retry.minDelayMs))
    }
  }
}

export class StoreContext {
  private writesSinceCheckpoint = 0
  private appendedSinceIndexing = 0
  private charsSinceIndexing = 0
  private idleIndexing: NodeJS.Immediate | null = null
  /** The dialect's deferred index where the schema has its table (findDeferredIndex). */
  private deferredIndex: DeferredIndex | null = null
  private closing: Promise<void> | null = null
  // A count, not a set of promises: an operation costs one increment instead of a set entry (≈ 4% of W1).
  private inFlight = 0
  private idle: (() => void) | null = null
  private readonly settled = () => {
    if (--this.inFlight === 0) this.idle?.()
  }

  /** The typed drizzle database over the same connection, for the store's non-hot queries and `store.db`. */
  readonly db: EngramDatabase

  constructor(
    readonly driver: StorageDriver,
    /** The engine's SQL (dialects/): every engine-specific statement the store runs comes from it. */
    readonly dialect: Dialect,
    private readonly retry: RetryPolicy,
    /** The store's busy_timeout (ms), restored after a statement that must not wait for a lock. */
    private readonly busyTimeout: number,
  ) {
    this.db = drizzleOver(driver)
  }

  /** Runs one public operation; refused once close() has been called, awaited by close(). */
  operation<T>(work: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(closedError())
    let running: Promise<T>
    try {
      running = work()
    } catch (error) {
      return Promise.reject(error)
    }
    this.inFlight++
    running.then(this.settled, this.settled)
    return running
  }

  /** Runs a query that only reads. (A chained promise, not an async function: one hop less per read.) */
  read<R = Row>(statement: Statement, action: string): Promise<R[]> {
    return this.run<R>(statement, action).then((result) => result.rows)
  }

  /** Runs a drizzle query; its driver errors become EngramErrors like every other statement's. */
  async query<T>(action: string, build: (db: EngramDatabase) => Promise<T>): Promise<T> {
    try {
      return await build(this.db)
    } catch (error) {
      // drizzle wraps the driver's error in a DrizzleQueryError whose cause is the driver's own error.
      throw toEngramError(error instanceof Error && error.cause ? error.cause : error, action)
    }
  }

  /**
   * Runs one statement as it is, in autocommit mode and without retries: for statements that are neither
   * plain reads nor part of a transaction (VACUUM, FTS5 commands).
   */
  async run<R = Row>(statement: Statement, action: string): Promise<QueryResult<R>> {
    try {
      return await this.driver.execute<R>(statement)
    } catch (error) {
      throw toEngramError(error, action)
    }
  }

  /** Runs the statements as one transaction, retrying with jittered back-off while the file is locked. */
  async write(statements: readonly Statement[], action: string): Promise<QueryResult[]> {
    const results = await this.retrying(() => this.driver.batch(statements), action)
    await this.maybeCheckpoint()
    return results
  }

  /**
   * Runs one statement that is safe to run again as it is (it carries its own idempotency token: see
   * dialects/postgres/append.ts), in autocommit mode, with write()'s retries: a serialization failure or
   * a connection lost before or during it runs it again.
   */
  writeIdempotent<R = Row>(statement: Statement, action: string): Promise<QueryResult<R>> {
    return this.retrying(() => this.driver.execute<R>(statement), action)
  }

  private retrying<T>(work: () => Promise<T>, action: string): Promise<T> {
    return whileBusy(work, this.retry).catch((error: unknown) => {
      throw toEngramError(error, action)
    })
  }

  /**
   * Runs `work` with SQLite's busy timeout at zero, so that a lock held elsewhere fails at once with
   * SQLITE_BUSY instead of blocking (the local drivers are synchronous: a wait would stall the event loop).
   */
  async withoutWaiting<T>(work: () => Promise<T>): Promise<T> {
    if (this.driver.capabilities.remote) return work()
    await this.driver.execute({ sql: 'PRAGMA busy_timeout = 0' })
    try {
      return await work()
    } finally {
      await this.driver.execute({ sql: `PRAGMA busy_timeout = ${this.busyTimeout}` })
    }
  }

  /**
   * One attempt at the statements as one transaction that gives up at once when another connection holds
   * the write lock: false then. For background work, which must never stall the process on a lock (on the
   * synchronous drivers a wait blocks the event loop for up to the busy timeout).
   */
  async writeUnlessLocked(statements: readonly Statement[], action: string): Promise<boolean> {
    try {
      await this.withoutWaiting(() => this.driver.batch(statements))
      return true
    } catch (error) {
      if (isBusyError(error)) return false
      throw toEngramError(error, action)
    }
  }

  /** One attempt at a write that may be skipped: a locked, read-only or failing database changes nothing. */
  async writeIfFree(statement: Statement): Promise<void> {
    await this.withoutWaiting(() => this.driver.execute(statement)).catch(() => undefined)
  }

  /**
   * Uses the dialect's deferred index if the database has its table: a migrations folder of one's own
   * without it (SQLite's 0017) leaves new messages to the triggers it has.
   */
  async findDeferredIndex(): Promise<void> {
    const deferred = this.dialect.deferredIndex
    if (deferred === null) return
    const [table] = await this.read<{ present: number | boolean }>(
      this.dialect.hasTable(deferred.table),
      INDEXING,
    )
    if (table?.present) this.deferredIndex = deferred
  }

  /**
   * After a write that appended `messages`, where the engine indexes them after their append
   * (Dialect.deferredIndex): once this connection has appended INDEX_BATCH (or INDEX_BATCH_CHARS of text)
   * since it last indexed, the waiting messages (every connection's) are indexed at once; fewer, as soon as
   * the process goes idle (the next turn of the event loop: a burst of appends is indexed as one batch).
   * Never fails the append, which is stored: a locked database or a failure leaves them waiting for the
   * next batch, a search or close.
   */
  async appended(messages: readonly { chars: number }[]): Promise<void> {
    const deferred = this.deferredIndex
    if (deferred === null || messages.length === 0) return
    this.appendedSinceIndexing += messages.length
    for (const message of messages) this.charsSinceIndexing += message.chars
    if (this.appendedSinceIndexing >= INDEX_BATCH || this.charsSinceIndexing >= INDEX_BATCH_CHARS) {
      await this.indexListed(deferred)
      return
    }
    this.idleIndexing ??= setImmediate(() => {
      this.idleIndexing = null
      if (this.closing === null) this.operation(() => this.indexListed(deferred)).catch(() => undefined)
    })
  }

  private sinceIndexing(): void {
    this.appendedSinceIndexing = 0
    this.charsSinceIndexing = 0
  }

  /** Indexes the waiting messages if this connection appended any since it last did; never throws. */
  private async indexListed(deferred: DeferredIndex): Promise<void> {
    if (this.appendedSinceIndexing > 0) await this.indexAll(deferred)
  }

  /** Indexes every waiting message (every connection's), never waiting for a lock; never throws. */
  private async indexAll(deferred: DeferredIndex): Promise<void> {
    const write = (statements: readonly Statement[]) => this.writeUnlessLocked(statements, INDEXING)
    if (await deferred.index(this, write, INDEXING).catch(() => false)) this.sinceIndexing()
  }

  /**
   * Before a search: the messages still waiting for their index entries (this connection's, another's, or
   * a crashed writer's) are indexed first, so that the search finds them, unless another connection holds
   * the write lock (a search never waits for a writer) or the index cannot be written (a read-only
   * database, a full disk): then the search reads the index as it is, and a later one finds them.
   */
  async indexWaiting(): Promise<void> {
    const deferred = this.deferredIndex
    if (deferred === null) return
    const [waiting] = await this.read<{ listed: number }>(deferred.waiting, INDEXING)
    if (waiting?.listed) await this.indexAll(deferred)
  }

  /** Waits for the operations in flight, then checkpoints and closes; operations after this are refused. */
  close(): Promise<void> {
    this.closing ??= this.shutDown()
    return this.closing
  }

  private async shutDown(): Promise<void> {
    // Operations are refused once closing, so the count only falls from here.
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve))
    // Best effort, as after an append: what is left waits for the next search of any connection.
    if (this.idleIndexing !== null) clearImmediate(this.idleIndexing)
    if (this.deferredIndex !== null) await this.indexListed(this.deferredIndex)
    if (this.driver.capabilities.localFile) {
      // Best effort: another process may be reading, and then the WAL simply stays for the next checkpoint.
      await this.driver.execute({ sql: 'PRAGMA wal_checkpoint(TRUNCATE)' }).catch(() => undefined)
    }
    await this.driver.close()
  }

  private async maybeCheckpoint(): Promise<void> {
    if (!this.driver.capabilities.localFile || ++this.writesSinceCheckpoint < CHECKPOINT_EVERY_WRITES) return
    this.writesSinceCheckpoint = 0
    await this.driver.execute({ sql: 'PRAGMA wal_checkpoint(PASSIVE)' }).catch(() => undefined)
  }
}
