import { getTableColumns } from 'drizzle-orm'
import type { SqlValue, Statement } from '../../driver.ts'
import { messages } from './schema/messages.ts'
import { newWriteToken, pruneTokensIfDue } from './write-tokens.ts'

const SQL_TYPES = new Map(Object.values(getTableColumns(messages)).map((c) => [c.name, c.getSQLType()]))

/**
 * The value as text sent as UTF-8 would arrive: a lone surrogate (possible in the text of content parts,
 * whose JSON keeps it) becomes U+FFFD, which JSON text for PostgreSQL cannot escape.
 */
const wellFormed = (value: SqlValue | undefined) =>
  // Node 20 has String.prototype.toWellFormed; TypeScript's ES2023 lib does not declare it yet.
  typeof value === 'string' ? (value as unknown as { toWellFormed(): string }).toWellFormed() : value

/** The statements of a one-round-trip append: the write itself, and where a retried one finds its ids. */
export interface PgAppend {
  /** Returns the new ids in order; no rows if the session is unknown or the token was already stored. */
  write: Statement
  /** The ids a stored token recorded (no rows: the append never happened). */
  lookup: Statement
}

/**
 * Appends messages in one statement, so one round trip at READ COMMITTED in autocommit mode: it draws the
 * ids, records them under a new token (`ON CONFLICT DO NOTHING`: if the same statement already committed,
 * or is committing on a lost connection, it waits for it and writes nothing), and inserts the rows only if
 * the token was new. The messages table's trigger keeps the session's counters in the same statement.
 * The rows travel as one JSON array, typed by the schema's columns.
 */
export function pgAppend(
  sessionId: string,
  columns: readonly string[],
  rows: readonly SqlValue[][],
): PgAppend {
  const token = newWriteToken()
  const record = columns.map((c) => `${c} ${SQL_TYPES.get(c)}`).join(', ')
  const json = JSON.stringify(
    rows.map((values) => Object.fromEntries(columns.map((c, i) => [c, wellFormed(values[i])]))),
  )
  const prune = pruneTokensIfDue()
  return {
    write: {
      sql: `WITH ids AS MATERIALIZED (
        SELECT nextval('messages_id_seq') AS id, n FROM generate_series(1, ?::int) AS n
        WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)),
      written AS (
        INSERT INTO write_tokens (token, ids) SELECT ?::uuid, array_agg(id ORDER BY n) FROM ids
        HAVING count(*) > 0 ON CONFLICT DO NOTHING RETURNING ids),
      inserted AS (
        INSERT INTO messages (id, session_id, ${columns.join(', ')})
        SELECT m.id, ?, ${columns.map((c) => `m.${c}`).join(', ')}
        FROM written, ROWS FROM (unnest(written.ids), jsonb_to_recordset(?::jsonb) AS (${record})) AS m(id, ${columns.join(', ')})
        RETURNING id)${prune ? `, pruned AS (${prune})` : ''}
      SELECT id FROM inserted ORDER BY id`,
      params: [rows.length, sessionId, token, sessionId, json],
    },
    lookup: {
      sql: 'SELECT u.id FROM write_tokens, unnest(ids) WITH ORDINALITY AS u(id, n) WHERE token = ?::uuid ORDER BY u.n',
      params: [token],
    },
  }
}
