import { EngramError, type Session, type Store } from '@engram/core'

const PAGE = 500

/**
 * The session a user named: a full id, a unique prefix of one (as `engram sessions` prints them), or
 * `latest`. Prefixes are matched in SQL (a range on the id), newest first.
 */
export async function findSession(store: Store, reference: string): Promise<Session> {
  if (reference === 'latest') {
    const [latest] = await store.listSessions({ limit: 1 })
    if (latest) return latest
    throw new EngramError('SESSION_NOT_FOUND', 'There are no sessions yet. Start one with `engram chat`.')
  }
  const exact = await store.getSession(reference)
  if (exact) return exact
  // Two are enough to know the prefix is ambiguous; the error lists them.
  const matches = await store.listSessions({ idPrefix: reference, limit: 2 })
  if (matches.length === 1) return matches[0] as Session
  if (matches.length === 0) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `No session id starts with ${JSON.stringify(reference)}. List the sessions with \`engram sessions\`.`,
    )
  }
  throw new EngramError(
    'INVALID_ARGUMENT',
    `${JSON.stringify(reference)} matches several sessions (${matches.map((s) => s.id).join(', ')}); give more characters of the id.`,
  )
}

/** Every session, newest first, a page at a time. */
export async function* allSessions(store: Store): AsyncGenerator<Session> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.listSessions({ limit: PAGE, offset })
    yield* page
    if (page.length < PAGE) return
  }
}
