import type { SqlValue, Statement } from '../../driver.ts'
import { indexedToolCalls, messageSearchText } from '../../search/index-text.ts'
import type { DeferredIndex } from '../dialect.ts'

/**
 * SQLite indexes new messages in batches (migration 0017): the insert trigger lists each new row in
 * `messages_unindexed`, in the append's transaction, and deferredIndex.index gives the listed rows their
 * index entries in one transaction and takes them off the list (when, the store decides: store/context.ts).
 * FTS5 writes every transaction's terms as a new segment; one segment per batch instead of one per append
 * made one-at-a-time appends about 1.5 times as fast (docs/benchmarks.md: W1).
 */

/** Listed rows read, and handed to the index, per statement. */
const READ_ROWS = 200
/**
 * At most this many rows, or about this many characters of text, are indexed per transaction (one FTS5
 * segment): a large append (an import, appendMessages of thousands) stays one segment, as when its rows were
 * indexed in its own transaction, and the memory a transaction holds stays bounded.
 */
const TRANSACTION_ROWS = 5000
const TRANSACTION_CHARS = 8_000_000

interface ListedRow {
  id: number
  content: string | null
  tool_calls: string | null
  search_text: string | null
}

const readListed = (after: number): Statement => ({
  sql: `SELECT m.id, m.content, m.tool_calls, m.search_text FROM messages_unindexed AS u
    JOIN messages AS m ON m.id = u.id WHERE u.id > ? ORDER BY u.id LIMIT ${READ_ROWS}`,
  params: [after],
  prepare: true,
})

/** The index text the store makes of a message's columns (messageSearchText), whatever its `search_text`. */
export const textOfColumns = (row: { content: string | null; tool_calls: string | null }): string =>
  messageSearchText(row.content, indexedToolCalls(row.tool_calls)) ?? row.content ?? ''

/**
 * A row's index text, as migration 0015 describes `search_text`: its content when null, the column when it
 * holds text, and when '' the text its writer would hand the index (textOfColumns).
 */
function indexTextOf(row: Omit<ListedRow, 'id'>): string {
  if (row.search_text === null) return row.content ?? ''
  if (row.search_text !== '') return row.search_text
  return textOfColumns(row)
}

/**
 * The rows as read, with their index texts: only a row still listed and still holding the columns it was
 * read with is indexed and taken off the list (one another connection changed since is indexed by the
 * update trigger, one it deleted is gone), all in the caller's transaction.
 */
function indexStatements(rows: readonly ListedRow[]): Statement[] {
  const values = `WITH r(id, body, content, tool_calls, search_text) AS (VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')})`
  const params: SqlValue[] = rows.flatMap((row) => [
    row.id,
    indexTextOf(row),
    row.content,
    row.tool_calls,
    row.search_text,
  ])
  const unchanged = `FROM r JOIN messages_unindexed AS u ON u.id = r.id JOIN messages AS m ON m.id = r.id
    AND m.content IS r.content AND m.tool_calls IS r.tool_calls AND m.search_text IS r.search_text`
  return [
    { sql: `${values} INSERT INTO messages_fts(rowid, body) SELECT r.id, r.body ${unchanged}`, params },
    { sql: `${values} DELETE FROM messages_unindexed WHERE id IN (SELECT r.id ${unchanged})`, params },
  ]
}

/** SQLite's deferred index: the listed rows, indexed up to a bounded batch per transaction. */
export const deferredIndex: DeferredIndex = {
  table: 'messages_unindexed',
  waiting: { sql: 'SELECT EXISTS (SELECT 1 FROM messages_unindexed) AS listed', prepare: true },
  async index(db, write, action) {
    for (let after = 0, more = true; more; ) {
      const statements: Statement[] = []
      let rows = 0
      let chars = 0
      while (rows < TRANSACTION_ROWS && chars < TRANSACTION_CHARS) {
        const read = await db.read<ListedRow>(readListed(after), action)
        more = read.length === READ_ROWS
        if (read.length === 0) break
        after = read.at(-1)?.id ?? after
        rows += read.length
        for (const row of read) chars += (row.content?.length ?? 0) + (row.tool_calls?.length ?? 0)
        statements.push(...indexStatements(read))
        if (!more) break
      }
      if (statements.length > 0 && !(await write(statements))) return false
    }
    return true
  },
}
