import { randomBytes } from 'node:crypto'
import { getTableColumns } from 'drizzle-orm'
import type { SqlValue, Statement } from '../../driver.ts'
import { messages } from './schema/messages.ts'

const SQL_TYPES = new Map(Object.values(getTableColumns(messages)).map((c) => [c.name, c.getSQLType()]))

/**
 * The most messages one append statement carries (each row binds its columns as parameters, and
 * PostgreSQL takes at most 65,535); a longer append is one transaction instead.
 */
export const PG_APPEND_MAX_ROWS = 1000

/** The statements of a one-round-trip append: the write itself, and where a retried one finds its ids. */
export interface PgAppend {
  /** Returns the new ids; no rows if the session is unknown or the same append was already stored. */
  write: Statement
  /** The ids of the rows the append stored, in order (no rows: it never happened). */
  lookup: Statement
}

/**
 * Appends messages in one INSERT, so one round trip at READ COMMITTED in autocommit mode, idempotent by
 * a token: each row's `ref` is the token and its place (`<token>.<i>`), and `ON CONFLICT DO NOTHING` on
 * the session's unique refs means that running the same statement again, after a reply lost with its
 * connection, stores nothing (if the first run is still committing, the second waits for it). A run that
 * stores no rows finds the first run's ids with `lookup`. The messages table's trigger keeps the
 * session's counters in the same statement. Plain appends on SQLite leave `ref` null.
 */
export function pgAppend(
  sessionId: string,
  columns: readonly string[],
  rows: readonly SqlValue[][],
): PgAppend {
  const token = randomBytes(16).toString('base64url')
  const refs = rows.map((_, i) => `${token}.${i}`)
  const row = `(?, ${columns.map((c) => `?::${SQL_TYPES.get(c)}`).join(', ')})`
  return {
    write: {
      sql: `INSERT INTO messages (session_id, ref, ${columns.join(', ')})
        SELECT ?, v.* FROM (VALUES ${rows.map(() => row).join(', ')}) AS v
        WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) ON CONFLICT DO NOTHING RETURNING id`,
      params: [sessionId, ...rows.flatMap((values, i) => [refs[i] as string, ...values]), sessionId],
    },
    lookup: {
      sql: `SELECT id FROM messages WHERE session_id = ? AND ref IN (${refs.map(() => '?').join(', ')}) ORDER BY id`,
      params: [sessionId, ...refs],
    },
  }
}
