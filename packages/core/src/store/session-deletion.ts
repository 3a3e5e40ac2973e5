import type { Dialect, SqlValue, Statement } from '../driver.ts'

/**
 * Deletes the sessions `ids` selects (a subquery). The schema's foreign keys (migration 0005) take their
 * messages, episodes, usage and window marks with them and detach their children; on SQLite their
 * messages' conversation windows (window-index.ts: contentless, so no trigger can see the rows) go first.
 * The last statement is the one that deletes the sessions.
 */
export function deleteSessionsStatements(
  dialect: Dialect,
  ids: string,
  params: readonly SqlValue[],
): Statement[] {
  const windows: Statement[] =
    dialect === 'postgres'
      ? []
      : [
          {
            sql: `DELETE FROM message_windows_fts WHERE rowid IN (SELECT id FROM messages WHERE session_id IN (${ids}))`,
            params,
          },
        ]
  return [...windows, { sql: `DELETE FROM sessions WHERE id IN (${ids})`, params }]
}
