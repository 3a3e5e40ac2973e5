import type { Row, SqlValue, Statement } from '../driver.ts'
import type { EngramError } from '../errors.ts'
import { toIndexText } from '../search/cjk.ts'
import type { IntegrityReport, PrunePreview, PruneSessionsOptions, ToolCall } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { messageSearchText } from './message-codec.ts'
import { deleteSessionsStatements } from './session-deletion.ts'
import { decodeSession, SESSION_SELECT, type SessionRow } from './session-row.ts'

const REBUILD_CHUNK = 500

interface IndexedRow {
  id: number
  content: string | null
  tool_calls: string | null
  search_text: string | null
}

/**
 * Recomputes every row's search text (rows written by other tools may lack the CJK split) and rebuilds
 * both FTS5 indexes from their tables, in one transaction: a failure leaves the old index in place.
 */
export async function rebuildSearchIndex(ctx: StoreContext): Promise<void> {
  const updates: Statement[] = []
  for (let after = 0; ; ) {
    const rows = await ctx.read<IndexedRow>(
      {
        sql: 'SELECT id, content, tool_calls, search_text FROM messages WHERE id > ? ORDER BY id LIMIT ?',
        params: [after, REBUILD_CHUNK],
      },
      'Reading messages to reindex',
    )
    if (rows.length === 0) break
    after = rows.at(-1)?.id ?? after
    for (const row of rows) {
      const calls = row.tool_calls === null ? [] : (JSON.parse(row.tool_calls) as ToolCall[])
      const searchText = messageSearchText(row.content, calls)
      if (searchText !== row.search_text) {
        updates.push({
          sql: 'UPDATE messages SET search_text = ? WHERE id = ?',
          params: [searchText, row.id],
        })
      }
    }
  }
  const episodes = await ctx.read<{ id: number; summary: string; search_text: string | null }>(
    { sql: 'SELECT id, summary, search_text FROM episodes' },
    'Reading episodes to reindex',
  )
  for (const row of episodes) {
    const searchText = toIndexText(row.summary)
    if (searchText !== row.search_text) {
      updates.push({ sql: 'UPDATE episodes SET search_text = ? WHERE id = ?', params: [searchText, row.id] })
    }
  }
  // PostgreSQL computes its search vectors from search_text itself; FTS5 indexes are rebuilt first, so
  // that the update triggers delete exactly what the index holds.
  const rebuild =
    ctx.dialect === 'postgres'
      ? []
      : [
          { sql: "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')" },
          { sql: "INSERT INTO episodes_fts(episodes_fts) VALUES ('rebuild')" },
        ]
  await ctx.write([...rebuild, ...updates], 'Rebuilding the search index')
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

async function checkFts(ctx: StoreContext, table: 'messages_fts' | 'episodes_fts'): Promise<string> {
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

export async function checkIntegrity(ctx: StoreContext): Promise<IntegrityReport> {
  if (ctx.dialect === 'postgres') return checkPostgres(ctx)
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

/**
 * PostgreSQL keeps its own pages and builds the search vectors itself (generated columns), so the check
 * is that every table and both GIN indexes can be read to the end: a failure is reported, not thrown.
 */
async function checkPostgres(ctx: StoreContext): Promise<IntegrityReport> {
  const scan = (table: string) =>
    ctx
      .read(
        { sql: `SELECT count(*) AS n FROM ${table} WHERE search_vector @@ to_tsquery('simple', 'engram')` },
        'Checking integrity',
      )
      .then(
        () => 'ok',
        (error: unknown) => reason(error),
      )
  const searchIndex = { messages: await scan('messages'), episodes: await scan('episodes') }
  const database = await ctx.read({ sql: 'SELECT count(*) AS n FROM sessions' }, 'Checking integrity').then(
    () => ['ok'],
    (error: unknown) => [reason(error)],
  )
  const ok = database[0] === 'ok' && searchIndex.messages === 'ok' && searchIndex.episodes === 'ok'
  return {
    ok,
    status: ok ? 'ok' : 'failed',
    database,
    searchIndex,
    fix: ok ? null : 'Check the server log; store.rebuildSearchIndex() recomputes every row search text.',
  }
}

/** The ids pruneSessions removes: ended sessions older than the cutoff, of one source if given. */
function doomedSessions(options: PruneSessionsOptions): { sql: string; params: SqlValue[] } {
  const { olderThanDays, source } = parse(args.pruneSessions, options, 'Pruning sessions')
  const cutoff = Date.now() - olderThanDays * 86_400_000
  return {
    sql: `SELECT id FROM sessions WHERE ended_at IS NOT NULL AND ended_at < ? ${source === undefined ? '' : 'AND source = ?'}`,
    params: source === undefined ? [cutoff] : [cutoff, source],
  }
}

/** Deletes ended sessions older than the cutoff with everything they own; their children stay, detached. */
export async function pruneSessions(ctx: StoreContext, options: PruneSessionsOptions): Promise<number> {
  const doomed = doomedSessions(options)
  const results = await ctx.write(deleteSessionsStatements(doomed.sql, doomed.params), 'Pruning sessions')
  return results.at(-1)?.changes ?? 0
}

/** What pruneSessions would delete, newest ended first; deletes nothing. One read. */
export async function previewPrune(ctx: StoreContext, options: PruneSessionsOptions): Promise<PrunePreview> {
  const doomed = doomedSessions(options)
  const rows = await ctx.read<SessionRow>(
    {
      sql: `${SESSION_SELECT} WHERE s.id IN (${doomed.sql}) ORDER BY s.ended_at DESC, s.rowid DESC`,
      params: doomed.params,
    },
    'Listing the sessions a prune would delete',
  )
  const sessions = rows.map(decodeSession)
  return { count: sessions.length, sessions }
}

/** Rewrites the database file to reclaim the space of deleted rows (SQLite VACUUM: needs the write lock). */
export async function vacuum(ctx: StoreContext): Promise<void> {
  await ctx.run({ sql: 'VACUUM' }, 'Vacuuming the database')
}
