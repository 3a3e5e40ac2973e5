import { EngramError, type Episode, type MessageInput, type Session, type Store } from '@engram/core/types'
import type { CompressibleMessage } from './messages.ts'
import type { CompressionResult } from './report.ts'

/** The part of the session store that persisting a compression needs (structurally, the real store). */
export type CompressionStore = Pick<Store, 'continueSession'>

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
 * Makes a compression durable, in one transaction: ends session `sessionId` with reason `compression`,
 * creates its child session (same source, model, user, system prompt and title; `parentSessionId` pointing
 * back), writes the compressed history into the child, and stores the summary as an episode of the parent
 * pointing at the id range of the messages it replaced, which stay archived and searchable in the parent.
 * The episode is null when nothing was summarised; `options.importance` (0–10) is stored on it. Throws when
 * the session does not exist or the compression did not change anything.
 */
export async function persistCompression(
  store: CompressionStore,
  sessionId: string,
  result: CompressionResult,
  options: { importance?: number } = {},
): Promise<{ session: Session; episode: Episode | null }> {
  if (result.report.status !== 'compressed') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Nothing to persist: the compression of session ${sessionId} was ${result.report.status}. Persist only a result whose report.status is 'compressed'.`,
    )
  }
  const range = result.report.summarizedIdRange
  const { session, episode } = await store.continueSession(sessionId, {
    endReason: COMPRESSION_END_REASON,
    messages: result.messages.map(toMessageInput),
    episode:
      result.summary === null
        ? undefined
        : {
            summary: result.summary,
            ...(options.importance === undefined ? {} : { importance: options.importance }),
            tokenCount: result.report.summaryTokens,
            firstMessageId: range?.first ?? null,
            lastMessageId: range?.last ?? null,
          },
  })
  return { session, episode }
}
