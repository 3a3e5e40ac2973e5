import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import type { QueryResult, Statement, StorageDriver } from '../driver.ts'
import { EngramError } from '../engram-error.ts'
import { PgConnections } from './pg-connections.ts'
import { isTransientPgError } from './pg-errors.ts'
import { numberPlaceholders } from './pg-placeholders.ts'
import { NUMBER_TYPE_OIDS, startupOptions } from './pg-settings.ts'
import { CLAIM_TOKEN, newWriteToken, pruneTokensIfDue, recordToken } from './pg-write-tokens.ts'

export interface PgDriverOptions {
  /** `postgres://user:password@host:port/database?sslmode=require` (node-postgres reads sslmode). */
  url: string
  /** Connections in this process's pool (default 10). */
  poolSize?: number
  /** Server-side limit on one statement (ms); unlimited by default. */
  statementTimeoutMs?: number
  /** The schema the store's tables live in (default `public`); several apps can share one database. */
  schema?: string
  /** Every transaction is read-only: writes fail with DATABASE_READONLY. */
  readonly?: boolean
  /**
   * Statements marked `prepare` are named and prepared once per connection (default true). False for a
   * pooler that does not keep prepared statements (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (NUMBER_TYPE_OIDS as readonly number[]).includes(oid)
      ? Number
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

const DEFAULT_POOL_SIZE = 10
/** Distinct statement texts a driver names; later ones run unnamed (the store marks only a few). */
const MAX_NAMED = 256

const toValues = (params: Statement['params']) =>
  (params ?? []).map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p) : p))

const toResult = <R>(result: pg.QueryResult): QueryResult<R> => ({
  rows: result.rows as R[],
  changes: result.rowCount ?? result.rows.length,
})

/** How long a driver keeps asking a restarting server how a lost COMMIT ended. */
const OUTCOME_WAIT_MS = 30_000

/**
 * Whether a transaction whose COMMIT lost its connection committed, asked on a new connection until the
 * server answers: it did if the token it stored is there. Asking claims the token otherwise, so a
 * transaction still on its way cannot commit after a "no".
 */
async function committed(
  query: (statement: Statement) => Promise<pg.QueryResult>,
  token: string,
  lost: unknown,
): Promise<boolean> {
  const deadline = Date.now() + OUTCOME_WAIT_MS
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      const { rows } = await query({ sql: CLAIM_TOKEN, params: [token] })
      return rows.length === 0
    } catch (error) {
      if (!isTransientPgError(error) || Date.now() > deadline)
        throw new EngramError(
          'DATABASE_UNREACHABLE',
          `The connection was lost during COMMIT and the server could not be asked whether the write was saved (${(lost as Error).message}). Check the data before writing it again.`,
          { cause: lost },
        )
      await sleep(delay * (0.5 + Math.random()))
    }
  }
}

/**
 * PostgreSQL through node-postgres: one pool per driver, statements renumbered from `?` to `$n`, bigints
 * read as numbers. A batch is one READ COMMITTED transaction on one pooled connection that also stores a
 * write token (pg-write-tokens.ts); if the connection drops during its COMMIT, the token says whether the
 * transaction committed, so a retry never writes the batch twice and an acknowledged batch is never lost.
 */
export function pgDriver(options: PgDriverOptions): StorageDriver {
  // The settings travel in the startup packet, so every pooled connection has them before its first query.
  const settings = startupOptions(options.schema ?? 'public', options.statementTimeoutMs, options.readonly)
  const pool = new PgConnections(
    { connectionString: options.url, types, options: settings },
    options.poolSize ?? DEFAULT_POOL_SIZE,
  )
  // A name per distinct text, the same on every connection (node-postgres prepares it on a connection's
  // first use and sends only the parameters after that).
  const names = new Map<string, string>()
  const nameOf = (sql: string) => {
    let name = names.get(sql)
    if (name === undefined && names.size < MAX_NAMED) {
      name = `engram_${names.size + 1}`
      names.set(sql, name)
    }
    return name
  }
  const prepared = options.preparedStatements !== false
  const run = (client: pg.Client, { sql, params, prepare }: Statement) => {
    const text = params?.length ? numberPlaceholders(sql) : sql
    return client.query({
      name: prepare && prepared ? nameOf(text) : undefined,
      text,
      values: toValues(params),
    })
  }
  // One statement on a pooled client. A server's error (a constraint, a timeout) leaves the connection as
  // it was; any other failure, or a connection the server ended, closes it.
  const query = async (statement: Statement): Promise<pg.QueryResult> => {
    const client = await pool.acquire()
    try {
      const result = await run(client, statement)
      pool.release(client)
      return result
    } catch (error) {
      // 26000: the server lost a statement this connection prepared (a pooler's DISCARD): a new connection
      // prepares it again.
      pool.release(
        client,
        !(error instanceof pg.DatabaseError) || isTransientPgError(error) || error.code === '26000',
      )
      throw error
    }
  }

  return {
    name: 'pg',
    dialect: 'postgres',
    capabilities: { localFile: false, remote: true },
    execute: (statement) => query(statement).then((result) => toResult(result)),
    batch: async (statements) => {
      const client = await pool.acquire()
      let broken: Error | undefined
      // A checked-out connection the server drops emits 'error', which would end the process unheard; the
      // query under way fails with it anyway, and the batch is retried or reported from there.
      const dropped = (error: Error) => {
        broken = error
      }
      client.on('error', dropped)
      let released = false
      const release = () => {
        if (released) return
        released = true
        client.off('error', dropped)
        pool.release(client, broken !== undefined)
      }
      try {
        const token = newWriteToken()
        const results: QueryResult[] = []
        try {
          await client.query('BEGIN ISOLATION LEVEL READ COMMITTED')
          for (const statement of statements) results.push(toResult(await run(client, statement)))
        } catch (error) {
          await client.query('ROLLBACK').catch((e: Error) => (broken = e))
          throw error
        }
        try {
          // The token goes in last (a migration's batch creates its table), with the COMMIT, in one round
          // trip of literals; now and then the expired tokens go with it.
          await client.query([recordToken(token), pruneTokensIfDue(), 'COMMIT'].filter(Boolean).join('; '))
        } catch (error) {
          if (isTransientPgError(error)) {
            broken = error as Error
            // Given back before another connection is asked, or a pool of one would wait for itself.
            release()
            if (await committed(query, token, error)) return results
          } else await client.query('ROLLBACK').catch((e: Error) => (broken = e))
          throw error
        }
        return results
      } catch (error) {
        if (isTransientPgError(error)) broken ??= error as Error
        throw error
      } finally {
        release()
      }
    },
    close: () => pool.end(),
  }
}
