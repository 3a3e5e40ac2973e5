import { isTransientPgError, pgCode, pgEngramError } from './dialects/postgres/errors.ts'
import { EngramError } from './engram-error.ts'

export { EngramError, type EngramErrorCode } from './engram-error.ts'

/** The SQLite result code of a driver error (`SQLITE_BUSY`, `SQLITE_NOTADB`, ...), if it has one. */
function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

/** A lock held elsewhere (SQLite) or a transaction the server rolled back for a retry (PostgreSQL). */
export function isBusyError(error: unknown): boolean {
  const code = sqliteCode(error)
  if (code === undefined) return isTransientPgError(error)
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
}

/** The write broke a uniqueness or other constraint (SQLite reports them all as one code). */
export function isConstraintError(error: unknown): boolean {
  return sqliteCode(error)?.startsWith('SQLITE_CONSTRAINT') === true || pgCode(error) === '23505'
}

/** Wraps a driver error in an EngramError whose message says what to do about it. */
export function toEngramError(error: unknown, action: string): EngramError {
  if (error instanceof EngramError) return error
  const code = sqliteCode(error) ?? ''
  // The first line only: native errors can carry a backtrace or transport metadata after it.
  const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0]
  if (code.startsWith('SQLITE_NOTADB')) {
    return new EngramError(
      'NOT_A_DATABASE',
      `${action}: the file is not an SQLite database (${detail}). Point the store at a new path or at an Engram database.`,
      { cause: error },
    )
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new EngramError(
      'DATABASE_CORRUPT',
      `${action}: the database file is damaged (${detail}). Restore it from a backup, or salvage what is readable with the sqlite3 shell: sqlite3 damaged.db ".recover" | sqlite3 recovered.db.`,
      { cause: error },
    )
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new EngramError(
      'DATABASE_READONLY',
      `${action}: the database is read-only (${detail}). Check the permissions of the file and its folder.`,
      { cause: error },
    )
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new EngramError(
      'DATABASE_PATH',
      `${action}: the database file cannot be opened (${detail}). Check that the path is a file in a writable folder.`,
      { cause: error },
    )
  }
  if (code.startsWith('SQLITE_FULL')) {
    return new EngramError(
      'DISK_FULL',
      `${action}: the disk holding the database is full (${detail}); nothing of this write was saved. Free some space and retry.`,
      { cause: error },
    )
  }
  if (code !== '' && isBusyError(error)) {
    return new EngramError(
      'DATABASE_BUSY',
      `${action}: the database stayed locked by another connection after every retry (${detail}). Raise busyTimeout or find the process holding a long write transaction.`,
      { cause: error },
    )
  }
  return (
    pgEngramError(error, action, detail ?? '') ??
    new EngramError('DATABASE_ERROR', `${action}: ${detail}`, { cause: error })
  )
}
