import type { Episode, MessageInput, NewEpisode, NewSession, Session, StoredMessage } from '@engram/core'
import type { CompressionResult } from './compress.ts'
import type { CompressibleMessage } from './messages.ts'

/** The part of the session store that persisting a compression needs (structurally, the real store). */
export interface CompressionStore {
  endSession(id: string, reason: string): Promise<void>
  getSession(id: string): Promise<Session | null>
  createSession(input: NewSession): Promise<Session>
  appendMessages(sessionId: string, messages: MessageInput[]): Promise<StoredMessage[]>
  addEpisode(input: NewEpisode): Promise<Episode>
}

/** The `end_reason` of a session that continued in a child after compression. */
export const COMPRESSION_END_REASON = 'compression'

function toMessageInput(message: CompressibleMessage & { timestamp?: number }): MessageInput {
  const input: MessageInput = { role: message.role, content: message.content }
  if (message.tool_calls) input.tool_calls = message.tool_calls
  if (message.tool_call_id !== undefined) input.tool_call_id = message.tool_call_id
  if (message.name !== undefined) input.name = message.name
  // Kept messages keep their time; new ones (summary, stubs) are stamped by the store.
  if (typeof message.timestamp === 'number') input.timestamp = message.timestamp
  return input
}

/**
 * Makes a compression durable: ends session `sessionId` with reason `compression`, creates its child session
 * (same source, model, user, system prompt and title; `parentSessionId` pointing back), writes the compressed
 * history into the child, and stores the summary as an episode of the parent pointing at the id range of the
 * messages it replaced, which stay archived and searchable in the parent. The episode is null when nothing
 * was summarised. Throws when the session does not exist or the compression did not change anything.
 */
export async function persistCompression(
  store: CompressionStore,
  sessionId: string,
  result: CompressionResult,
): Promise<{ session: Session; episode: Episode | null }> {
  if (result.report.status !== 'compressed') {
    throw new Error(`nothing to persist: the compression of session ${sessionId} was ${result.report.status}`)
  }
  const parent = await store.getSession(sessionId)
  if (!parent) throw new Error(`cannot persist compression: session ${sessionId} does not exist`)
  await store.endSession(sessionId, COMPRESSION_END_REASON)
  const session = await store.createSession({
    source: parent.source,
    model: parent.model,
    userId: parent.userId,
    systemPrompt: parent.systemPrompt,
    title: parent.title,
    parentSessionId: parent.id,
  })
  await store.appendMessages(session.id, result.messages.map(toMessageInput))
  if (result.summary === null) return { session, episode: null }
  const range = result.report.summarizedIdRange
  const episode = await store.addEpisode({
    sessionId,
    summary: result.summary,
    tokenCount: result.report.summaryTokens,
    firstMessageId: range?.first ?? null,
    lastMessageId: range?.last ?? null,
  })
  return { session, episode }
}
