import { isTransientPgError, pgCode, UNREACHABLE_CODES } from '../../drivers/pg-errors.ts'
import { EngramError } from '../../engram-error.ts'

/** A PostgreSQL or connection error as an EngramError naming the cause and the fix; undefined if unknown. */
export function pgEngramError(error: unknown, action: string, detail: string): EngramError | undefined {
  const code = pgCode(error)
  const because = { cause: error }
  if (code === undefined)
    // node-postgres reports a connection the server ended (a restart, a crash) by message, without a code
    return isTransientPgError(error)
      ? new EngramError(
          'DATABASE_UNREACHABLE',
          `${action}: the connection to the PostgreSQL server was lost (${detail}). Check that the server runs (a restart ends every connection), then try again.`,
          because,
        )
      : undefined
  if (code === '28P01' || code === '28000')
    return new EngramError(
      'DATABASE_AUTH',
      `${action}: PostgreSQL refused the login (${detail}). Check the user and password in the url (postgres://user:password@host/db) and the server's pg_hba.conf.`,
      because,
    )
  if (code === '3D000')
    return new EngramError(
      'DATABASE_MISSING',
      `${action}: the database does not exist (${detail}). Create it first (createdb NAME, or CREATE DATABASE in psql), or fix its name in the url.`,
      because,
    )
  if (UNREACHABLE_CODES.has(code))
    return new EngramError(
      'DATABASE_UNREACHABLE',
      `${action}: no PostgreSQL server answered (${detail}). Check the host and port in the url, that the server runs, and that the network lets you reach it.`,
      because,
    )
  if (code === '26000')
    return new EngramError(
      'DATABASE_ERROR',
      `${action}: the server does not know a statement this connection prepared (${detail}), as behind PgBouncer in transaction mode before 1.21. Open the store with preparedStatements: false (in a url: prepared_statements=false), or let the pooler keep prepared statements (PgBouncer max_prepared_statements).`,
      because,
    )
  if (code === '25006')
    return new EngramError(
      'DATABASE_READONLY',
      `${action}: the connection is read-only (${detail}). Open the store without readonly, or connect to the primary.`,
      because,
    )
  if (code === '22021' || code === '22P05')
    return new EngramError(
      'INVALID_ARGUMENT',
      `${action}: PostgreSQL text cannot hold this character (${detail}); NUL (\\0) is the usual one. Remove it, or use the SQLite store, which keeps it.`,
      because,
    )
  if (code === '57014')
    return new EngramError(
      'DATABASE_BUSY',
      `${action}: the statement ran past the statement timeout (${detail}). Raise statementTimeoutMs, or find what holds the rows locked.`,
      because,
    )
  if (isTransientPgError(error))
    return new EngramError(
      'DATABASE_BUSY',
      `${action}: the transaction could not complete after every retry (${detail}). Check the server and the connection to it.`,
      because,
    )
  return undefined
}
