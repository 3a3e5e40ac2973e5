import { EngramError, type RefMessageInput, type Store } from '@engram/core'
import { messageRef, messagesOf, toChatMessage } from './messages.ts'

export interface ConversationOptions {
  /** The state channel holding the conversation (default `messages`, as MessagesAnnotation names it). */
  channel?: string
  /** The source recorded on the sessions (default `langgraph`): `engram ui` and `session_search` show it. */
  source?: string
  /** The user the sessions belong to (scopes search and `session_search`). */
  userId?: string
  /** The session id of a thread (default `langgraph-<thread_id>`). */
  sessionId?: (threadId: string) => string
}

export const DEFAULT_MESSAGES_CHANNEL = 'messages'

/**
 * Keeps a graph's conversation searchable: the messages of a thread's messages channel are written to an
 * Engram session of their own (one per thread), so `store.search`, the agent's `session_search`, the MCP
 * server and `engram ui` find LangGraph threads. Each message is written once, by its id
 * (appendMessagesOnce refs), however often a checkpoint holds it: across steps, resumes from another
 * process, and forks (a fork's new messages join the thread's session; those it shares are not repeated).
 */
export class ConversationMirror {
  readonly channel: string
  private readonly source: string
  private readonly userId: string | undefined
  private readonly sessionIdOf: (threadId: string) => string
  /** Refs this process has written, per session: a step sends only the messages new to it. */
  private readonly written = new Map<string, Set<string>>()

  constructor(
    private readonly store: Store,
    options: ConversationOptions = {},
  ) {
    this.channel = options.channel ?? DEFAULT_MESSAGES_CHANNEL
    this.source = options.source ?? 'langgraph'
    this.userId = options.userId
    this.sessionIdOf = options.sessionId ?? ((threadId) => `langgraph-${threadId}`)
  }

  /** Writes the messages of `value` (the channel's value) that the thread's session does not hold yet. */
  async mirror(threadId: string, value: unknown): Promise<void> {
    const sessionId = this.sessionIdOf(threadId)
    const written = this.written.get(sessionId) ?? new Set<string>()
    const fresh: RefMessageInput[] = []
    for (const message of messagesOf(value)) {
      const ref = messageRef(message)
      const chat = toChatMessage(message)
      if (written.has(ref) || chat === null) continue
      fresh.push({ ...chat, ref } as RefMessageInput)
    }
    if (fresh.length === 0) return
    if (!this.written.has(sessionId)) await this.ensureSession(sessionId, threadId)
    await this.store.appendMessagesOnce(sessionId, fresh)
    for (const { ref } of fresh) written.add(ref)
    this.written.set(sessionId, written)
  }

  private async ensureSession(sessionId: string, threadId: string): Promise<void> {
    if ((await this.store.getSession(sessionId)) !== null) return
    try {
      await this.store.createSession({
        id: sessionId,
        source: this.source,
        title: `LangGraph thread ${threadId}`,
        ...(this.userId === undefined ? {} : { userId: this.userId }),
      })
    } catch (error) {
      // another process created it first
      if (!(error instanceof EngramError && error.code === 'SESSION_EXISTS')) throw error
    }
  }
}
