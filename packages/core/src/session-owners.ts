import { and, count, desc, inArray, isNull } from 'drizzle-orm'
import { EngramError } from './engram-error.ts'
import { sessions } from './schema/sessions.ts'
import type { Store } from './store/store.ts'
import type { Session } from './types.ts'

/**
 * Sessions stored without a user (by an older CLI, an import, a library call without `userId`) belong to
 * nobody: a scoped reader (an MCP server, an agent with a user) never sees them. These read and hand them
 * over, explicitly: nothing here runs unless a person asks.
 */

/** How many sessions have no user. One indexed count. */
export async function countUnownedSessions(store: Store): Promise<number> {
  const [row] = await store.db.select({ n: count() }).from(sessions).where(isNull(sessions.userId))
  return Number(row?.n ?? 0)
}

/** The newest sessions without a user, at most `limit` (1 to 1000). */
export async function listUnownedSessions(store: Store, limit = 50): Promise<Session[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new EngramError('INVALID_ARGUMENT', `limit must be a whole number from 1 to 1000 (got ${limit}).`)
  return store.db
    .select()
    .from(sessions)
    .where(isNull(sessions.userId))
    .orderBy(desc(sessions.startedAt))
    .limit(limit)
}

/**
 * Gives the sessions without a user to `userId` (all of them, or those of `ids` that have none) and returns
 * the ids it changed. One UPDATE: a session that has a user keeps it. Search rows follow the session's user
 * (PostgreSQL copies it by trigger; SQLite reads it from the session).
 */
export async function adoptSessions(
  store: Store,
  userId: string,
  options: { ids?: readonly string[] } = {},
): Promise<string[]> {
  if (userId.trim() === '')
    throw new EngramError('INVALID_ARGUMENT', 'adoptSessions needs a user id (got an empty one).')
  const unowned = isNull(sessions.userId)
  const rows = await store.db
    .update(sessions)
    .set({ userId })
    .where(options.ids ? and(unowned, inArray(sessions.id, [...options.ids])) : unowned)
    .returning({ id: sessions.id })
  return rows.map((row) => row.id)
}
