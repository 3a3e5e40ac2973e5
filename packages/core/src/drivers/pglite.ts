import { PGlite, type Transaction } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import type { QueryResult, Statement, StorageDriver } from '../driver.ts'
import { numberPlaceholders } from './pg-placeholders.ts'
import { NUMBER_TYPE_OIDS, sessionSettings } from './pg-settings.ts'

export interface PgliteDriverOptions {
  /**
   * A PGlite database folder, `memory://` (the default) or an instance you made: a shared instance stays
   * open when the driver closes, so several stores (each in its own `schema`) can use one. Make yours with
   * `extensions: { btree_gin }` (`@electric-sql/pglite/contrib/btree_gin`) for the user-scoped search
   * index; without it, a user's search filters after the index (migration 0005).
   */
  database?: string | PGlite
  /** The schema the store's tables live in (default `public`). */
  schema?: string
  /** Every transaction is read-only: writes fail with DATABASE_READONLY. */
  readonly?: boolean
  statementTimeoutMs?: number
}

const parsers = Object.fromEntries(NUMBER_TYPE_OIDS.map((oid) => [oid, Number]))

type Runner = Pick<Transaction, 'query' | 'exec'>

// A PGlite instance is one connection: stores sharing it take turns, each setting its own search_path.
const turns = new WeakMap<PGlite, { tail: Promise<unknown>; settings: string | null }>()

/** PGlite: PostgreSQL compiled to WebAssembly, in this process (embedded, for tests and single-process use). */
export function pgliteDriver(options: PgliteDriverOptions = {}): StorageDriver {
  const owned = !(options.database instanceof PGlite)
  const db =
    options.database instanceof PGlite
      ? options.database
      : new PGlite(options.database ?? 'memory://', { parsers, extensions: { btree_gin } })
  const settings = sessionSettings(options.schema ?? 'public', options.statementTimeoutMs)
  settings.push(`SET default_transaction_read_only = ${options.readonly ? 'on' : 'off'}`)
  const setup = settings.join('; ')
  let turn = turns.get(db)
  if (!turn) {
    turn = { tail: Promise.resolve(), settings: null }
    turns.set(db, turn)
  }
  const shared = turn
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const next = shared.tail.then(async () => {
      if (shared.settings !== setup) {
        await db.exec(setup)
        shared.settings = setup
      }
      return work()
    })
    shared.tail = next.catch(() => undefined)
    return next
  }
  const run = async <R>(runner: Runner, { sql, params }: Statement): Promise<QueryResult<R>> => {
    const result = await runner.query<R>(
      params?.length ? numberPlaceholders(sql) : sql,
      [...(params ?? [])],
      {
        parsers,
      },
    )
    return { rows: result.rows, changes: result.affectedRows || result.rows.length }
  }

  return {
    name: 'pglite',
    dialect: 'postgres',
    capabilities: { localFile: false, remote: true },
    execute: (statement) => inTurn(() => run(db, statement)),
    batch: (statements) =>
      inTurn(() =>
        db.transaction(async (tx) => {
          const results: QueryResult[] = []
          for (const statement of statements) results.push(await run(tx, statement))
          return results
        }),
      ),
    close: async () => {
      await shared.tail
      if (owned) await db.close()
    },
  }
}
