import type { Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { toIndexText } from '../search/cjk.ts'
import type { ToolCall } from '../types.ts'
import type { StoreContext } from './context.ts'
import { messageSearchText } from './message-codec.ts'
import { deleteSessionsStatements } from './session-deletion.ts'

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
  await ctx.write(
    [
      // Rebuilt first, so that the update triggers delete exactly what the index holds.
      { sql: "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')" },
      { sql: "INSERT INTO episodes_fts(episodes_fts) VALUES ('rebuild')" },
      ...updates,
    ],
    'Rebuilding the search index',
  )
}

export interface IntegrityReport {
  ok: boolean
  /** What `PRAGMA integrity_check` reported: ['ok'] for a sound file. */
  database: string[]
  /** Each FTS5 index checked against its table: 'ok' or the error. */
  searchIndex: { messages: string; episodes: string }
}

async function checkFts(ctx: StoreContext, table: 'messages_fts' | 'episodes_fts'): Promise<string> {
  try {
    // rank = 1 makes FTS5 compare the index with the content table, not only with itself.
    await ctx.read(
      { sql: `INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)` },
      'Checking the search index',
    )
    return 'ok'
  } catch (error) {
    return error instanceof EngramError ? error.message : String(error)
  }
}

export async function checkIntegrity(ctx: StoreContext): Promise<IntegrityReport> {
  const rows = await ctx.read<{ integrity_check: string }>(
    { sql: 'PRAGMA integrity_check' },
    'Checking integrity',
  )
  const database = rows.map((row) => String(Object.values(row)[0]))
  const searchIndex = {
    messages: await checkFts(ctx, 'messages_fts'),
    episodes: await checkFts(ctx, 'episodes_fts'),
  }
  const ok =
    database.length === 1 &&
    database[0] === 'ok' &&
    searchIndex.messages === 'ok' &&
    searchIndex.episodes === 'ok'
  return { ok, database, searchIndex }
}

export interface PruneSessionsOptions {
  olderThanDays: number
  source?: string
}

/** Deletes ended sessions older than the cutoff with everything they own; their children stay, detached. */
export async function pruneSessions(ctx: StoreContext, options: PruneSessionsOptions): Promise<number> {
  const days = options?.olderThanDays
  if (typeof days !== 'number' || !Number.isFinite(days) || days < 0) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `olderThanDays must be a number of at least 0 (got ${String(days)}).`,
    )
  }
  const cutoff = Date.now() - days * 86_400_000
  const doomed = `SELECT id FROM sessions WHERE ended_at IS NOT NULL AND ended_at < ? ${options.source === undefined ? '' : 'AND source = ?'}`
  const params = options.source === undefined ? [cutoff] : [cutoff, options.source]
  const results = await ctx.write(deleteSessionsStatements(doomed, params), 'Pruning sessions')
  return results.at(-1)?.changes ?? 0
}
