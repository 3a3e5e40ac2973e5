import { isTransientPgError, pgCode, pgEngramError } from './dialects/postgres/errors.ts'

export type EngramErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_CONFIG'
  | 'INVALID_MESSAGE'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_EXISTS'
  | 'DATABASE_PATH'
  | 'DATABASE_READONLY'
  | 'NOT_A_DATABASE'
  | 'FOREIGN_DATABASE'
  | 'DATABASE_BUSY'
  | 'DATABASE_CORRUPT'
  | 'DISK_FULL'
  | 'DATABASE_ERROR'
  | 'FTS5_MISSING'
  | 'SCHEMA_TOO_NEW'
  | 'MIGRATION_FAILED'
  | 'DRIVER_MISSING'
  | 'DATABASE_AUTH'
  | 'DATABASE_MISSING'
  | 'DATABASE_UNREACHABLE'
  | 'STORE_CLOSED'
  | 'CONTEXT_TOO_LARGE'
  | 'MEMORY_FILE_ERROR'

/** The one error Engram throws: `code` names the cause, `cause` holds the driver's own error. */
export class EngramError extends Error {
  override readonly name = 'EngramError'
  readonly code: EngramErrorCode

  constructor(code: EngramErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

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
