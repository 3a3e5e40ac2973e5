import type { HandedIndexText } from '../dialects/dialect.ts'
import type { SqlValue, Statement } from '../driver.ts'
import { INDEX_MARK, toIndexText, toSearchText } from '../search/cjk.ts'
import { holdsNul, indexedToolCalls, messageSearchText } from '../search/index-text.ts'
import type { PrunePreview, PruneSessionsOptions } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
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
 * Recomputes every row's index text (rows written by other tools may lack the CJK split) and rebuilds the
 * search index from it in one transaction (the dialect's statements): a failure leaves the old index in
 * place. Rows whose search_text changes are updated; on an engine whose index is handed the text (SQLite),
 * the texts of those rows are kept in memory for the transaction. `also`: statements of the same transaction.
 */
export async function rebuildSearchIndex(ctx: StoreContext, also: readonly Statement[] = []): Promise<void> {
  const updates: Statement[] = [...also]
  const handed: HandedIndexText[] = []
  const { messageIndex } = ctx.dialect
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
      const searchText = messageSearchText(row.content, indexedToolCalls(row.tool_calls))
      const column = messageIndex.column(searchText, holdsNul(row.content, row.tool_calls))
      if (column !== row.search_text) {
        updates.push({ sql: 'UPDATE messages SET search_text = ? WHERE id = ?', params: [column, row.id] })
      }
      if (column === '' && searchText !== null)
        handed.push({ id: row.id, searchText, content: row.content, toolCalls: row.tool_calls })
    }
  }
  const episodes = await ctx.read<{ id: number; summary: string; search_text: string | null }>(
    { sql: 'SELECT id, summary, search_text FROM episodes' },
    'Reading episodes to reindex',
  )
  for (const row of episodes) {
    const searchText = toSearchText(row.summary)
    if (searchText !== row.search_text) {
      updates.push({ sql: 'UPDATE episodes SET search_text = ? WHERE id = ?', params: [searchText, row.id] })
    }
  }
  await ctx.write(ctx.dialect.rebuildSearchIndex(updates, handed), 'Rebuilding the search index')
}

/** The task migration 0016 (PostgreSQL 0012) leaves when the database held index texts of the older CJK split. */
const CJK_PAIRS_TASK = 'cjk-pair-index'

/**
 * Finishes what a migration left to the store (engram_pending_tasks, migration 0016 / PostgreSQL 0012):
 * once the index read CJK as pairs of characters, the rows indexed with one token per character are
 * indexed again (rebuildSearchIndex), the graph items' search texts, which keep no other copy of their
 * text, made again from their old ones, and the task removed, all in one transaction: a failure leaves
 * the task for the next open. Reads every message, once per database.
 */
export async function finishPendingTasks(ctx: StoreContext): Promise<void> {
  const [table] = await ctx.read<{ present: number | boolean }>(
    ctx.dialect.hasTable('engram_pending_tasks'),
    'Reading the upgrade tasks the migrations left',
  )
  // a migrations folder of one's own, without migration 0016 (PostgreSQL 0012), leaves none
  if (!table?.present) return
  const tasks = await ctx.read<{ task: string }>(
    { sql: 'SELECT task FROM engram_pending_tasks' },
    'Reading the upgrade tasks the migrations left',
  )
  if (!tasks.some(({ task }) => task === CJK_PAIRS_TASK)) return
  const items = await ctx.read<{ id: number; search_text: string }>(
    { sql: 'SELECT id, search_text FROM graph_items WHERE search_text LIKE ?', params: [`%${INDEX_MARK}%`] },
    'Reading the graph items to reindex',
  )
  // each item only as it was read, and only while the task is still there: another store finishing the task
  // first has written pairs, which read as one token per character would be made pairs of pairs
  const also: Statement[] = items.map(({ id, search_text }) => {
    const text = search_text.replaceAll(INDEX_MARK, '')
    return {
      sql: `UPDATE graph_items SET search_text = ? WHERE id = ? AND search_text = ?
        AND EXISTS (SELECT 1 FROM engram_pending_tasks WHERE task = ?)`,
      params: [toIndexText(text) ?? text, id, search_text, CJK_PAIRS_TASK],
    }
  })
  also.push({ sql: 'DELETE FROM engram_pending_tasks WHERE task = ?', params: [CJK_PAIRS_TASK] })
  await rebuildSearchIndex(ctx, also)
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
