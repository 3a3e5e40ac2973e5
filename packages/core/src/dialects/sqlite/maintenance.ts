import type { Row } from '../../driver.ts'
import type { EngramError } from '../../errors.ts'
import type { IntegrityReport } from '../../types.ts'
import type { DialectConnection } from '../dialect.ts'

/**
 * Rebuilds both FTS5 indexes from their tables, before the rows' search texts are rewritten, so that the
 * update triggers delete exactly what the index holds.
 */
export const rebuildSearchIndex = () => [
  { sql: "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')" },
  { sql: "INSERT INTO episodes_fts(episodes_fts) VALUES ('rebuild')" },
]

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

async function checkFts(ctx: DialectConnection, table: 'messages_fts' | 'episodes_fts'): Promise<string> {
  // rank = 1 makes FTS5 compare the index with the content table, not only with itself. The command is a
  // write, so it runs without waiting: a lock held elsewhere is reported as busy, at once.
  await ctx.withoutWaiting(() =>
    ctx.run(
      { sql: `INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)` },
      'Checking the search index',
    ),
  )
  return 'ok'
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

export async function checkIntegrity(ctx: DialectConnection): Promise<IntegrityReport> {
  let database: string[]
  try {
    const rows = await ctx.read<Row>({ sql: 'PRAGMA integrity_check' }, 'Checking integrity')
    database = rows.map((row) => String(Object.values(row)[0]))
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
