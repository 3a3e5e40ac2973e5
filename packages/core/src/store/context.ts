import { setTimeout as sleep } from 'node:timers/promises'
import { drizzleOver, type EngramDatabase } from '../database.ts'
import type { Dialect } from '../dialects/dialect.ts'
import type { QueryResult, Row, Statement, StorageDriver } from '../driver.ts'
import { EngramError, isBusyError, toEngramError } from '../errors.ts'
import type { RetryPolicy } from '../store-options.ts'

/** A write every this many runs a passive WAL checkpoint, so the WAL stays short under many writers. */
const CHECKPOINT_EVERY_WRITES = 1000

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

  /** Waits for the operations in flight, then checkpoints and closes; operations after this are refused. */
  close(): Promise<void> {
    this.closing ??= this.shutDown()
    return this.closing
  }

  private async shutDown(): Promise<void> {
    // Operations are refused once closing, so the count only falls from here.
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve))
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
