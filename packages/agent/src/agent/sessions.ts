import { EngramError, type Session, type Store } from '@engram/core'

/** The end reason of a session left for a new one (`newSession`). */
export const NEW_SESSION_END_REASON = 'new_session'

/** Who the sessions belong to: `resume('latest')` looks for the newest of this source and user. */
export interface SessionScope {
  source: string
  userId?: string
}

/**
 * The session `reference` names (`latest`: the newest of the scope), followed to the tip of its compression
 * chain; refused when it belongs to another user than the scope's.
 */
export async function findResumable(store: Store, reference: string, scope: SessionScope): Promise<Session> {
  const { source, userId } = scope
  let id = reference
  if (reference === 'latest') {
    const [latest] = await store.listSessions({
      source,
      limit: 1,
      ...(userId === undefined ? {} : { userId }),
    })
    if (!latest) {
      throw new EngramError(
        'SESSION_NOT_FOUND',
        `No session of source ${JSON.stringify(source)} to resume${userId === undefined ? '' : ` for user ${JSON.stringify(userId)}`}. Start one with run().`,
      )
    }
    id = latest.id
  }
  const session = await store.getSession(await store.resolveTip(id))
  if (!session) throw new EngramError('SESSION_NOT_FOUND', `Session ${JSON.stringify(id)} does not exist.`)
  if (userId !== undefined && session.userId !== userId) {
    throw new EngramError('SESSION_NOT_FOUND', `Session ${JSON.stringify(id)} does not belong to this user.`)
  }
  return session
}
