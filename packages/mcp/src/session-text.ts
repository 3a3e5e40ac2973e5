import { textOf } from '@engram/compressor'
import { EngramError, type Session, type StoredMessage } from '@engram/core'
import type { Budget } from './budget.ts'
import type { McpStore } from './deps.ts'
import { describeScope, type Scope, scopeKey } from './scope.ts'

const MIN_PREFIX = 4

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
const flat = (text: string) => text.replace(/\s+/g, ' ').trim()

/** The text of a message as one line, with the names of the tools it called. */
export function messageText(message: StoredMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => `[called ${call.function.name}]`)
  return flat([textOf(message), ...calls].filter(Boolean).join(' ')) || '(empty)'
}

const TITLE_TOKENS = 20

/** One line naming a session: id, start, source, title (clipped), message count. */
export function describeSession(session: Session, budget: Budget): string {
  const title = session.title ? ` · ${JSON.stringify(budget.clip(flat(session.title), TITLE_TOKENS))}` : ''
  return `${session.id} · ${when(session.startedAt)} · ${session.source}${title} · ${session.messageCount} messages`
}

/** The fields of a session a client needs to refer to it. */
export function sessionSummary(session: Session) {
  return {
    id: session.id,
    title: session.title,
    source: session.source,
    startedAt: new Date(session.startedAt).toISOString(),
    messageCount: session.messageCount,
  }
}

/**
 * The session a full id or a unique prefix names, inside the scope only: a session of another user or
 * project is reported as not found, exactly like one that does not exist, so ids cannot be probed.
 */
export async function resolveSession(store: McpStore, scope: Scope, idOrPrefix: string): Promise<Session> {
  const key = scopeKey(scope)
  const wanted = idOrPrefix.trim()
  const exact = await store.getSession(wanted)
  if (exact && exact.userId === key) return exact
  const found =
    wanted.length < MIN_PREFIX ? [] : await store.listSessions({ idPrefix: wanted, userId: key, limit: 11 })
  if (found.length === 1) return found[0] as Session
  if (found.length === 0) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `No session with id or prefix ${JSON.stringify(wanted)} in the scope of this server (${describeScope(scope)}). Call sessions_list or session_search and copy an id (at least ${MIN_PREFIX} characters).`,
    )
  }
  throw new EngramError(
    'INVALID_ARGUMENT',
    `${JSON.stringify(wanted)} is the prefix of ${found.length > 10 ? 'more than 10' : found.length} sessions; give more characters of the id.`,
  )
}
