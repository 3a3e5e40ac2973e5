import { setTimeout as sleep } from 'node:timers/promises'
import type { QueryResult, Row, Statement, StorageDriver } from '../driver.ts'
import { EngramError, isBusyError, toEngramError } from '../errors.ts'

export interface RetryPolicy {
  /** Attempts in all, the first included (Hermes uses 15). */
  attempts: number
  minDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 15, minDelayMs: 20, maxDelayMs: 150 }

/** A write every this many runs a passive WAL checkpoint, so the WAL stays short under many writers. */
const CHECKPOINT_EVERY_WRITES = 1000

/** What the store's modules share: reads, retried atomic writes, and the open/closed state. */
export class StoreContext {
  private writesSinceCheckpoint = 0
  private closed = false

  constructor(
    readonly driver: StorageDriver,
    private readonly retry: RetryPolicy,
  ) {}

  async read<R = Row>(statement: Statement, action: string): Promise<R[]> {
    this.assertOpen()
    try {
      return (await this.driver.execute<R>(statement)).rows
    } catch (error) {
      throw toEngramError(error, action)
    }
  }

  /** Runs the statements as one transaction, retrying with jittered back-off while the file is locked. */
  async write(statements: readonly Statement[], action: string): Promise<QueryResult[]> {
    this.assertOpen()
    for (let attempt = 1; ; attempt++) {
      try {
        const results = await this.driver.batch(statements)
        await this.maybeCheckpoint()
        return results
      } catch (error) {
        if (!isBusyError(error) || attempt >= this.retry.attempts) throw toEngramError(error, action)
        const { minDelayMs, maxDelayMs } = this.retry
        await sleep(minDelayMs + Math.random() * (maxDelayMs - minDelayMs))
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    if (this.driver.capabilities.localFile) {
      // Best effort: another process may be reading, and then the WAL simply stays for the next checkpoint.
      await this.driver.execute({ sql: 'PRAGMA wal_checkpoint(TRUNCATE)' }).catch(() => undefined)
    }
    this.closed = true
    await this.driver.close()
  }

  private async maybeCheckpoint(): Promise<void> {
    if (!this.driver.capabilities.localFile || ++this.writesSinceCheckpoint < CHECKPOINT_EVERY_WRITES) return
    this.writesSinceCheckpoint = 0
    await this.driver.execute({ sql: 'PRAGMA wal_checkpoint(PASSIVE)' }).catch(() => undefined)
  }

  private assertOpen(): void {
    if (this.closed)
      throw new EngramError('STORE_CLOSED', 'The store is closed. Open a new one with openStore().')
  }
}
