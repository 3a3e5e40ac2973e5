import type { SqlValue, Statement } from '../driver.ts'

/**
 * Deletes the sessions `ids` selects (a subquery) with their messages, episodes and usage, and detaches
 * their children. The subquery is evaluated anew by each statement, inside one transaction.
 */
export function deleteSessionsStatements(ids: string, params: readonly SqlValue[]): Statement[] {
  return [
    { sql: `DELETE FROM messages WHERE session_id IN (${ids})`, params },
    { sql: `DELETE FROM episodes WHERE session_id IN (${ids})`, params },
    { sql: `DELETE FROM model_calls WHERE session_id IN (${ids})`, params },
    { sql: `UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id IN (${ids})`, params },
    { sql: `DELETE FROM sessions WHERE id IN (${ids})`, params },
  ]
}
