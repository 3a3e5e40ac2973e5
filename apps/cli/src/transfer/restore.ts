import type { MessageInput, Store, StoredMessage } from '@engram/core'
import { sessions as sessionsTable } from '@engram/core/schema'
import { eq } from 'drizzle-orm'
import type { Progress } from '../progress.ts'
import { type ExportedSession, parentsFirst, type UsageRow } from './document.ts'

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

/** `total` split into `parts` whole shares that add up to it exactly. */
function share(total: number, parts: number, index: number): number {
  const base = Math.floor(total / parts)
  return index === 0 ? total - base * (parts - 1) : base
}

/** One usage row becomes `calls` recorded calls whose sums equal the row, so the report reads the same. */
async function recordRow(store: Store, sessionId: string, row: UsageRow): Promise<void> {
  const calls = Math.max(1, row.calls)
  for (let i = 0; i < calls; i++) {
    await store.recordUsage(sessionId, {
      model: row.model,
      purpose: row.purpose,
      inputTokens: share(row.inputTokens, calls, i),
      outputTokens: share(row.outputTokens, calls, i),
      cacheReadTokens: share(row.cacheReadTokens, calls, i),
      cacheWriteTokens: share(row.cacheWriteTokens, calls, i),
      costUsd: i === 0 ? row.costUsd : 0,
    })
  }
}

/**
 * Writes exported sessions into the store, parents before children, keeping their ids. Idempotent: every
 * part (session, usage, end, messages, episodes) is written only when the store does not hold it yet, so a
 * second run imports nothing twice and a run cut short is completed by the next one. Each session's
 * messages go in one transaction, after its other parts.
 */
export async function restoreSessions(
  store: Store,
  sessions: readonly ExportedSession[],
  progress: Progress,
): Promise<RestoreResult> {
  const result: RestoreResult = { imported: 0, skipped: 0, messages: 0, warnings: [] }
  for (const { session, messages, episodes, usage } of parentsFirst(sessions)) {
    let current = await store.getSession(session.id)
    const created = current === null
    if (current) result.skipped++
    else {
      const parent = session.parentSessionId
      const parentKnown = parent !== null && (await store.getSession(parent)) !== null
      if (parent !== null && !parentKnown) {
        result.warnings.push(
          `session ${session.id}: its parent ${parent} is not in the file or the store; imported without it`,
        )
      }
      current = await store.createSession({
        id: session.id,
        source: session.source,
        userId: session.userId,
        model: session.model,
        title: session.title,
        systemPrompt: session.systemPrompt,
        parentSessionId: parentKnown ? parent : null,
      })
      result.imported++
    }
    // Messages come after usage and the end, so a session holding messages is complete.
    if (usage.length > 0 && (await store.usage({ sessionId: session.id })).total.calls === 0) {
      for (const row of usage) await recordRow(store, session.id, row)
    }
    if (session.endedAt !== null && current.endedAt === null) {
      await store.endSession(session.id, session.endReason ?? 'ended')
    }
    if (created) {
      // The store stamps sessions with the time they are written; an import keeps the original times.
      await store.db
        .update(sessionsTable)
        .set({ startedAt: session.startedAt, endedAt: session.endedAt })
        .where(eq(sessionsTable.id, session.id))
    }
    let stored = await store.getStoredMessages(session.id)
    if (stored.length === 0 && messages.length > 0) {
      stored = await store.appendMessages(session.id, messages.map(messageInput))
      result.messages += stored.length
    }
    const newId = new Map(messages.map((m, i) => [m.id, stored[i]?.id ?? null]))
    if (episodes.length > 0 && (await store.getEpisodes(session.id)).length === 0) {
      for (const episode of episodes) {
        await store.addEpisode({
          sessionId: session.id,
          summary: episode.summary,
          content: episode.content,
          importance: episode.importance,
          tokenCount: episode.tokenCount,
          firstMessageId: newId.get(episode.firstMessageId ?? -1) ?? null,
          lastMessageId: newId.get(episode.lastMessageId ?? -1) ?? null,
        })
      }
    }
    progress.increment(Math.max(1, messages.length))
  }
  return result
}
