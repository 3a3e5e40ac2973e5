import type { MessageInput, Store, StoredMessage } from '@engram/core'
import type { Progress } from '../progress.ts'
import { type ExportedSession, parentsFirst } from './document.ts'

export interface RestoreResult {
  /** Sessions created by this run. */
  imported: number
  /** Sessions that were already in the store (a second run of the same import skips them all). */
  skipped: number
  messages: number
  warnings: string[]
}

function messageInput(message: StoredMessage): MessageInput {
  const input: MessageInput = { role: message.role, content: message.content, timestamp: message.timestamp }
  if (message.tool_calls) input.tool_calls = message.tool_calls
  if (message.tool_call_id !== undefined) input.tool_call_id = message.tool_call_id
  if (message.name !== undefined) input.name = message.name
  if (message.tokenCount !== null && message.tokenCount !== undefined) input.tokenCount = message.tokenCount
  return input
}

/**
 * Writes exported sessions into the store, parents before children, keeping their ids and times: each
 * session whole, in one transaction (store.importSession), so a run cut short leaves whole sessions and
 * the next run adds the rest. A session already in the store is skipped; a parent that is neither in the
 * file nor in the store is dropped with a warning.
 */
export async function restoreSessions(
  store: Store,
  sessions: readonly ExportedSession[],
  progress: Progress,
): Promise<RestoreResult> {
  const result: RestoreResult = { imported: 0, skipped: 0, messages: 0, warnings: [] }
  for (const { session, messages, episodes, usage } of parentsFirst(sessions)) {
    const parent = session.parentSessionId
    const parentKnown = parent !== null && (await store.getSession(parent)) !== null
    if (parent !== null && !parentKnown) {
      result.warnings.push(
        `session ${session.id}: its parent ${parent} is not in the file or the store; imported without it`,
      )
    }
    // Episodes point at messages by id; in the store they get new ids, so they are given by position.
    const position = new Map(messages.map((m, i) => [m.id, i]))
    const done = await store.importSession({
      session: {
        id: session.id,
        source: session.source,
        userId: session.userId,
        model: session.model,
        title: session.title,
        systemPrompt: session.systemPrompt,
        parentSessionId: parentKnown ? parent : null,
        startedAt: session.startedAt,
        endedAt: session.endedAt,
        endReason: session.endReason,
      },
      messages: messages.map(messageInput),
      usage,
      episodes: episodes.map((episode) => ({
        summary: episode.summary,
        content: episode.content,
        importance: episode.importance,
        tokenCount: episode.tokenCount,
        firstMessageIndex: position.get(episode.firstMessageId ?? -1) ?? null,
        lastMessageIndex: position.get(episode.lastMessageId ?? -1) ?? null,
      })),
    })
    if (done.created) result.imported++
    else result.skipped++
    result.messages += done.messages
    progress.increment(Math.max(1, messages.length))
  }
  return result
}
