import { EngramError, type ResolveSessionOptions, type Session, type Store } from '@engram/core'

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
