import type { Row, Statement } from '../../driver.ts'
import type { EngramError } from '../../errors.ts'
import type { IntegrityReport } from '../../types.ts'
import type { DialectConnection, HandedIndexText, MessageIndexing } from '../dialect.ts'
import { textOfColumns } from './unindexed.ts'

/**
 * The message index is contentless (migration 0015): a row's `search_text` is '' when its index text is
 * made from its columns (messageSearchText) by whoever indexes it, so the row never holds a copy. A row with
 * a NUL keeps its copy (SQLite's text functions stop at a NUL; the copy has a space there), and a row whose
 * index text is its content leaves the column null. New rows wait for their entries (unindexed.ts).
 */
export const messageIndex: MessageIndexing = {
  column: (searchText, nul) => (searchText === null || nul ? searchText : ''),
}

/** Rows per INSERT of handed index texts in a rebuild (4 parameters each). */
const REBUILD_ROWS = 200
/** The handed index texts of a rebuild, with the columns they were computed from, for its transaction. */
const REBUILT = 'temp.engram_rebuilt'
/**
 * Handed rows the rebuild did not read as they are now: rows another connection appended, or changed, or
 * wrote under the id of a row it deleted (ids are reused) since the rebuild's reads. Their entries are
 * their writers', and stay.
 */
const UNREAD = `SELECT m.id FROM messages AS m WHERE m.search_text = '' AND NOT EXISTS (SELECT 1 FROM ${REBUILT} AS r WHERE r.id = m.id AND r.content IS m.content AND r.tool_calls IS m.tool_calls)`

/**
 * Rebuilds both FTS5 indexes in one transaction. The episode index is rebuilt from its table first, so
 * that the update triggers of the search-text updates delete exactly what it holds. The message index is
 * emptied after the updates (whose triggers index their rows), but for the handed rows the rebuild did not
 * read (UNREAD: written by others since its reads; emptied whole when there are none), and filled again:
 * every row that carries its index text (its content, or its copy) from the table, and each handed text
 * read to the row that still holds what it was read from. A row deleted since the reads is not indexed,
 * and the rows now indexed leave the list of those waiting for their entries (unindexed.ts).
 */
export function rebuildSearchIndex(
  updates: readonly Statement[],
  handed: readonly HandedIndexText[],
): Statement[] {
  const rebuilt: Statement[] = []
  for (let i = 0; i < handed.length; i += REBUILD_ROWS) {
    const rows = handed.slice(i, i + REBUILD_ROWS)
    rebuilt.push({
      sql: `INSERT INTO ${REBUILT}(id, body, content, tool_calls) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')}`,
      params: rows.flatMap((row) => [row.id, row.searchText, row.content, row.toolCalls]),
    })
  }
  return [
    { sql: "INSERT INTO episodes_fts(episodes_fts) VALUES ('rebuild')" },
    ...updates,
    { sql: `DROP TABLE IF EXISTS ${REBUILT}` },
    {
      sql: `CREATE TABLE ${REBUILT} (id INTEGER PRIMARY KEY, body TEXT NOT NULL, content TEXT, tool_calls TEXT)`,
    },
    ...rebuilt,
    { sql: `INSERT INTO messages_fts(messages_fts) SELECT 'delete-all' WHERE NOT EXISTS (${UNREAD})` },
    { sql: `DELETE FROM messages_fts WHERE rowid NOT IN (${UNREAD})` },
    {
      sql: "INSERT INTO messages_fts(rowid, body) SELECT id, coalesce(search_text, content, '') FROM messages WHERE search_text IS NOT ''",
    },
    {
      sql: `INSERT INTO messages_fts(rowid, body) SELECT m.id, r.body FROM ${REBUILT} AS r JOIN messages AS m ON m.id = r.id AND m.search_text = '' AND m.content IS r.content AND m.tool_calls IS r.tool_calls`,
    },
    // every row is indexed now but the unread ones, listed or not (unindexed.ts)
    { sql: `DELETE FROM messages_unindexed WHERE id NOT IN (${UNREAD})` },
    { sql: `DROP TABLE ${REBUILT}` },
  ]
}

const RECOVER_FIX =
  'Restore the file from a backup, or salvage what is readable with the sqlite3 shell: sqlite3 damaged.db ".recover" | sqlite3 recovered.db, then open recovered.db.'
const REBUILD_FIX = 'Rebuild the search index with store.rebuildSearchIndex().'
const BUSY_FIX =
  'Another connection holds the write lock, which the search-index check needs; run the check again when it is done.'

/** The checks a store answers with, as one word: what doctor tells the user first. */
const classify = (error: unknown): 'busy' | 'corrupt' | 'failed' => {
  const code = (error as EngramError).code
  if (code === 'DATABASE_BUSY') return 'busy'
  if (code === 'DATABASE_CORRUPT' || code === 'NOT_A_DATABASE') return 'corrupt'
  return 'failed'
}

const CHECK = 'Checking the search index'
/** Messages read and indexed for the comparison at a time: the check's memory stays bounded. */
const CHECK_CHUNK = 500
const EXPECTED = 'temp.engram_expected_fts'
const TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"

/** Rows of `a` missing from `b` and of `b` missing from `a`, in one count. */
const differences = (a: string, b: string) =>
  `SELECT (SELECT count(*) FROM (${a} EXCEPT ${b})) + (SELECT count(*) FROM (${b} EXCEPT ${a})) AS n`

/**
 * The contentless message index against what it should hold: every message is indexed again, as the store
 * indexes it, into a temporary index, and the two are compared by each row's token count and by each
 * term's row and occurrence counts (both read from the indexes, linear in their size). Returns how many
 * rows and terms differ.
 */
async function compareMessageIndex(ctx: DialectConnection): Promise<{ rows: number; terms: number }> {
  const drop = async () => {
    for (const table of ['temp.engram_vocab_index', 'temp.engram_vocab_expected', EXPECTED])
      await ctx.run({ sql: `DROP TABLE IF EXISTS ${table}` }, CHECK)
  }
  await drop()
  try {
    await ctx.run(
      { sql: `CREATE VIRTUAL TABLE ${EXPECTED} USING fts5(body, content='', ${TOKENIZE})` },
      CHECK,
    )
    for (let after = 0; ; ) {
      const rows = await ctx.read<{ id: number; content: string | null; tool_calls: string | null }>(
        {
          // a row still waiting for its entry has none (unindexed.ts)
          sql: 'SELECT id, content, tool_calls FROM messages WHERE id > ? AND id NOT IN (SELECT id FROM messages_unindexed) ORDER BY id LIMIT ?',
          params: [after, CHECK_CHUNK],
        },
        CHECK,
      )
      if (rows.length === 0) break
      after = rows.at(-1)?.id ?? after
      await ctx.run(
        {
          sql: `INSERT INTO ${EXPECTED}(rowid, body) VALUES ${rows.map(() => '(?, ?)').join(', ')}`,
          params: rows.flatMap((row) => [row.id, textOfColumns(row)]),
        },
        CHECK,
      )
    }
    await ctx.run(
      { sql: 'CREATE VIRTUAL TABLE temp.engram_vocab_index USING fts5vocab(main, messages_fts, row)' },
      CHECK,
    )
    await ctx.run(
      {
        sql: 'CREATE VIRTUAL TABLE temp.engram_vocab_expected USING fts5vocab(temp, engram_expected_fts, row)',
      },
      CHECK,
    )
    const [rows] = await ctx.read<{ n: number }>(
      {
        sql: differences(
          'SELECT id, sz FROM main.messages_fts_docsize',
          'SELECT id, sz FROM temp.engram_expected_fts_docsize',
        ),
      },
      CHECK,
    )
    const [terms] = await ctx.read<{ n: number }>(
      {
        sql: differences(
          'SELECT term, doc, cnt FROM temp.engram_vocab_index',
          'SELECT term, doc, cnt FROM temp.engram_vocab_expected',
        ),
      },
      CHECK,
    )
    return { rows: Number(rows?.n ?? 0), terms: Number(terms?.n ?? 0) }
  } finally {
    await drop()
  }
}

/** How many times the message index is compared with the messages while they change under the check. */
const COMPARE_ATTEMPTS = 3

/** The messages' count and highest id, which a write by another connection moves. */
async function messagesState(ctx: DialectConnection): Promise<string> {
  const [row] = await ctx.read<{ n: number; top: number | null }>(
    { sql: 'SELECT count(*) AS n, max(id) AS top FROM messages' },
    CHECK,
  )
  return `${row?.n}:${row?.top}`
}

async function checkFts(ctx: DialectConnection, table: 'messages_fts' | 'episodes_fts'): Promise<string> {
  // rank = 1 makes FTS5 compare an external-content index with its table, not only with itself. The
  // command is a write, so it runs without waiting: a lock held elsewhere is reported as busy, at once.
  await ctx.withoutWaiting(() =>
    ctx.run({ sql: `INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)` }, CHECK),
  )
  // The contentless message index has no table to compare with: it is compared with one built now, in
  // temporary tables, which a server's connection does not keep from one statement to the next.
  if (table === 'episodes_fts' || ctx.driver.capabilities.remote) return 'ok'
  // The comparison reads the messages in chunks, not in one snapshot: a difference found while another
  // connection wrote is looked at again, and reported once the messages stood still, or at the last try.
  let drift: { rows: number; terms: number }
  for (let attempt = 1; ; attempt++) {
    const before = await messagesState(ctx)
    drift = await compareMessageIndex(ctx)
    if (drift.rows === 0 && drift.terms === 0) return 'ok'
    if (attempt === COMPARE_ATTEMPTS || (await messagesState(ctx)) === before) break
  }
  throw new Error(
    `The message index does not match the messages (differences: ${drift.rows} in rows' token counts, ${drift.terms} in terms' counts).`,
  )
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** How many times PRAGMA integrity_check runs while it reports an FTS5 index corrupt (see integrityCheck). */
const INTEGRITY_ATTEMPTS = 3

/**
 * PRAGMA integrity_check, run again after refreshing the FTS5 indexes while it reports one corrupt. FTS5
 * keeps each index's structure per connection, and the pragma's check of an index (SQLite 3.53, libSQL)
 * reads that copy without asking whether another connection has written since: a copy gone stale reads
 * as corrupt ("fts5: corruption found reading blob …"; libSQL: "malformed inverted index for FTS5 table
 * …") on a sound file. A query on the index refreshes the copy; a real corruption is reported again.
 */
async function integrityCheck(ctx: DialectConnection): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const rows = await ctx.read<Row>({ sql: 'PRAGMA integrity_check' }, 'Checking integrity')
    const lines = rows.map((row) => String(Object.values(row)[0]))
    if (attempt === INTEGRITY_ATTEMPTS || !lines.some((line) => /\bfts5\b/i.test(line))) return lines
    for (const table of ['messages_fts', 'episodes_fts']) {
      await ctx.read(
        { sql: `SELECT count(*) FROM ${table} WHERE ${table} MATCH 'engramrefresh'` },
        'Checking integrity',
      )
    }
  }
}

export async function checkIntegrity(ctx: DialectConnection): Promise<IntegrityReport> {
  let database: string[]
  try {
    database = await integrityCheck(ctx)
  } catch (error) {
    const status = classify(error)
    return {
      ok: false,
      status,
      database: [reason(error)],
      searchIndex: { messages: 'not checked', episodes: 'not checked' },
      fix: status === 'busy' ? BUSY_FIX : RECOVER_FIX,
    }
  }
  if (database.length !== 1 || database[0] !== 'ok') {
    const searchIndex = { messages: 'not checked', episodes: 'not checked' }
    return { ok: false, status: 'corrupt', database, searchIndex, fix: RECOVER_FIX }
  }
  const statuses: IntegrityReport['status'][] = []
  const check = async (table: 'messages_fts' | 'episodes_fts') => {
    try {
      return await checkFts(ctx, table)
    } catch (error) {
      statuses.push(classify(error) === 'busy' ? 'busy' : 'search-index')
      return reason(error)
    }
  }
  const searchIndex = { messages: await check('messages_fts'), episodes: await check('episodes_fts') }
  const status = statuses.includes('search-index') ? 'search-index' : (statuses[0] ?? 'ok')
  const fix = status === 'ok' ? null : status === 'busy' ? BUSY_FIX : REBUILD_FIX
  return { ok: status === 'ok', status, database, searchIndex, fix }
}
