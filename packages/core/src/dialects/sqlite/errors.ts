import { EngramError } from '../../engram-error.ts'

/** The SQLite result code of a driver error (`SQLITE_BUSY`, `SQLITE_NOTADB`, ...), if it has one. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

/** A lock held elsewhere: SQLITE_BUSY or SQLITE_LOCKED (and their extended codes). */
export const isSqliteBusy = (code: string) =>
  code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')

/** The EngramError of an SQLite error (by its result code), or undefined when it has none this maps. */
export function sqliteEngramError(error: unknown, action: string, detail: string): EngramError | undefined {
  const code = sqliteCode(error)
  if (code === undefined) return undefined
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
  if (isSqliteBusy(code)) {
    return new EngramError(
      'DATABASE_BUSY',
      `${action}: the database stayed locked by another connection after every retry (${detail}). Raise busyTimeout or find the process holding a long write transaction.`,
      { cause: error },
    )
  }
  return undefined
}
