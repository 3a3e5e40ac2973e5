import { EngramError, type ResolveSessionOptions, type Session, type Store } from '@engram/core'
import { unownedHint } from './identity.ts'

/**
 * The session a user named: `latest`, a full id, or a unique prefix of one (as `engram sessions` prints
 * them), resolved by the store; a miss gets the command that lists or starts sessions as its fix.
 */
export async function findSession(
  store: Store,
  reference: string,
  options: ResolveSessionOptions = {},
): Promise<Session> {
  try {
    return await store.resolveSession(reference, options)
  } catch (error) {
    if (!(error instanceof EngramError) || error.code !== 'SESSION_NOT_FOUND') throw error
    const fix =
      reference === 'latest'
        ? 'Start one with `engram chat`, or list them with `engram sessions`.'
        : 'List the sessions with `engram sessions`.'
    throw new EngramError('SESSION_NOT_FOUND', `${error.message} ${fix}`, { cause: error })
  }
}

/**
 * The session `reference` names among `user`'s (`latest`: their newest of `source`). A session of nobody
 * or of another user is refused with what to do about it (adopt it, or run as that user); a miss while
 * sessions without a user exist says so: they are never taken silently.
 */
export async function findOwnSession(
  store: Store,
  reference: string,
  scope: { source: string; user: string; command: string },
): Promise<Session> {
  const { source, user, command } = scope
  if (reference === 'latest') {
    try {
      return await findSession(store, 'latest', { source, userId: user })
    } catch (error) {
      const hint = error instanceof EngramError ? await unownedHint(store, user, command) : null
      if (!hint) throw error
      throw new EngramError('SESSION_NOT_FOUND', `${(error as Error).message} ${hint}`, { cause: error })
    }
  }
  const session = await findSession(store, reference)
  if (session.userId === user) return session
  throw new EngramError(
    'SESSION_NOT_FOUND',
    session.userId === null
      ? `Session ${session.id} has no user, so it is not ${JSON.stringify(user)}'s. Make it theirs with \`${command} sessions adopt --user ${user} --session ${session.id}\`, then resume it.`
      : `Session ${session.id} is user ${JSON.stringify(session.userId)}'s, not ${JSON.stringify(user)}'s. Run as that user (ENGRAM_USER=${session.userId}) to resume it.`,
  )
}
