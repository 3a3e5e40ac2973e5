/**
 * What a PostgreSQL driver needs to know of its errors: their codes, and which ones a retry of the same
 * transaction can outlive. The dialect words them for the user (dialects/postgres/errors.ts).
 */

/** The SQLSTATE of a PostgreSQL error (`40001`, `23505`, ...), or a Node socket error code. */
export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && !code.startsWith('SQLITE_') ? code : undefined
}

const SOCKET_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'])

/** Socket codes of a server that is not there (refused, unknown host, no route, no answer). */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
])

/**
 * Errors after which the same transaction can simply run again: a serialization failure or deadlock
 * (rolled back by the server), or a connection lost or refused before the transaction committed (the
 * driver turns a connection lost during COMMIT into one of these only when the server says it did not
 * commit). A server restarting refuses connections for a moment (57P03) or ends them (57P01).
 */
export function isTransientPgError(error: unknown): boolean {
  const code = pgCode(error)
  if (code === undefined) return /Connection terminated|connection not open/i.test(String(error))
  return (
    code === '40001' ||
    code === '40P01' ||
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    SOCKET_ERRORS.has(code)
  )
}
