import { randomBytes } from 'node:crypto'
import type { SqlValue, Statement } from '../../driver.ts'
import { pgCode } from '../../drivers/pg-errors.ts'
import type { DialectConnection } from '../dialect.ts'

/**
 * The most messages one append statement carries (each row binds its columns as parameters, and
 * PostgreSQL takes at most 65,535); a longer append is one transaction of such statements.
 */
const PG_APPEND_MAX_ROWS = 1000

/** The statements of an append: the writes themselves, and where a retried one finds its ids. */
interface PgAppend {
  /** Each returns the ids of its rows; none if the same append was already stored. */
  writes: Statement[]
  /** The ids of the rows the append stored, in order (no rows: it never happened). */
  lookup: Statement
}

/**
 * Appends messages in INSERTs of up to PG_APPEND_MAX_ROWS rows (one statement, so one round trip at READ
 * COMMITTED in autocommit mode, for most appends), idempotent by a token: each row's `ref` is the token and
 * its place (`<token>.<i>`), and `ON CONFLICT DO NOTHING` on the session's unique refs means that running the
 * same statements again, after a reply lost with its connection, stores nothing (if the first run is still
 * committing, the second waits for it). A run that stores no rows finds the first run's ids with `lookup`.
 * An unknown session fails the foreign key (see isUnknownSession). The messages table's trigger keeps the
 * session's counters in the same statement. Plain appends on SQLite leave `ref` null.
 */
export function pgAppend(
  sessionId: string,
  columns: readonly string[],
  rows: readonly SqlValue[][],
): PgAppend {
  const token = randomBytes(16).toString('base64url')
  const row = `(?, ?, ${columns.map(() => '?').join(', ')})`
  const writes: Statement[] = []
  for (let from = 0; from < rows.length; from += PG_APPEND_MAX_ROWS) {
    const chunk = rows.slice(from, from + PG_APPEND_MAX_ROWS)
    writes.push({
      sql: `INSERT INTO messages (session_id, ref, ${columns.join(', ')})
        VALUES ${chunk.map(() => row).join(', ')} ON CONFLICT DO NOTHING RETURNING id`,
      params: chunk.flatMap((values, i) => [sessionId, `${token}.${from + i}`, ...values]),
    })
  }
  return {
    writes,
    lookup: {
      sql: 'SELECT id FROM messages WHERE session_id = ? AND left(ref, ?) = ? ORDER BY id',
      params: [sessionId, token.length + 1, `${token}.`],
    },
  }
}

/** The append failed because its session does not exist (the messages' foreign key; 23503). */
const isUnknownSession = (error: unknown) =>
  pgCode((error as { cause?: unknown } | null)?.cause ?? error) === '23503'

/**
 * PostgreSQL's append: one statement (one transaction of them past PG_APPEND_MAX_ROWS rows), idempotent under
 * retries (see pgAppend). The new ids in order; none when the session does not exist.
 */
export async function appendRows(
  db: DialectConnection,
  sessionId: string,
  columns: readonly string[],
  rows: SqlValue[][],
): Promise<number[]> {
  const action = 'Appending a message'
  const { writes, lookup } = pgAppend(sessionId, columns, rows)
  let written: { id: number }[]
  try {
    written =
      writes.length === 1
        ? (await db.writeIdempotent<{ id: number }>(writes[0] as Statement, action)).rows
        : (await db.write(writes, action)).flatMap((result) => result.rows as { id: number }[])
  } catch (error) {
    if (isUnknownSession(error)) return []
    throw error
  }
  // No rows: a retry whose first run had committed (its rows carry the token).
  const found = written.length > 0 ? written : await db.read<{ id: number }>(lookup, action)
  // One statement draws its ids in row order, and the statements run in order, so in id order they are the
  // messages' order.
  return found.map((row) => row.id).sort((a, b) => a - b)
}
