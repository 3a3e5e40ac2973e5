import type { SqlValue, Statement } from '../driver.ts'

/**
 * Deletes the sessions `ids` selects (a subquery). The schema's foreign keys (migration 0005) take their
 * messages, episodes and usage with them and detach their children. The last statement is the one that
 * deletes the sessions.
 */
export function deleteSessionsStatements(ids: string, params: readonly SqlValue[]): Statement[] {
  return [{ sql: `DELETE FROM sessions WHERE id IN (${ids})`, params }]
}
