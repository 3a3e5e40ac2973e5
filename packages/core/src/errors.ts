import { pgEngramError } from './dialects/postgres/errors.ts'
import { isSqliteBusy, sqliteCode, sqliteEngramError } from './dialects/sqlite/errors.ts'
import { isTransientPgError, pgCode } from './drivers/pg-errors.ts'
import { EngramError } from './engram-error.ts'

export { EngramError, type EngramErrorCode } from './engram-error.ts'

// A driver error says which engine raised it (an `SQLITE_*` code, or a PostgreSQL SQLSTATE): each
// dialect maps its own (dialects/*/errors.ts).

/** A lock held elsewhere (SQLite) or a transaction the server rolled back for a retry (PostgreSQL). */
export function isBusyError(error: unknown): boolean {
  const code = sqliteCode(error)
  return code === undefined ? isTransientPgError(error) : isSqliteBusy(code)
}

/** The write broke a uniqueness or other constraint (SQLite reports them all as one code). */
export function isConstraintError(error: unknown): boolean {
  return sqliteCode(error)?.startsWith('SQLITE_CONSTRAINT') === true || pgCode(error) === '23505'
}

/** Wraps a driver error in an EngramError whose message says what to do about it. */
export function toEngramError(error: unknown, action: string): EngramError {
  if (error instanceof EngramError) return error
  // The first line only: native errors can carry a backtrace or transport metadata after it.
  const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
  return (
    sqliteEngramError(error, action, detail) ??
    pgEngramError(error, action, detail) ??
    new EngramError('DATABASE_ERROR', `${action}: ${detail}`, { cause: error })
  )
}
