import type { CompressibleMessage, ContextCompressor } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import type { BaseMessage } from '@langchain/core/messages'
import { RemoveMessage } from '@langchain/core/messages'
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph'
import { DEFAULT_MESSAGES_CHANNEL } from './conversation.ts'
import { fromChatMessage, messagesOf, toChatMessage } from './messages.ts'

export interface CompactionOptions {
  /** Engram's compressor, with the model's window and the summariser to use. */
  compressor: ContextCompressor
  /** The state channel holding the conversation (default `messages`). */
  channel?: string
}

const sameMessage = (a: ChatMessage, b: CompressibleMessage) =>
  a.role === b.role &&
  a.content === b.content &&
  JSON.stringify((a as { tool_calls?: unknown }).tool_calls ?? null) ===
    JSON.stringify((b as { tool_calls?: unknown }).tool_calls ?? null)

/**
 * A graph node that runs Engram's compressor on the messages channel when the window fills: nothing
 * happens below the compressor's trigger; above it, old tool outputs become placeholders, the middle of
 * the conversation becomes a summary and the latest turns stay as they were. The node returns the
 * compacted list as an update that replaces the channel (RemoveMessage of all, then the list): messages
 * kept as they were keep their ids, changed and new ones (the summary) get new ones. With an EngramSaver
 * mirroring the conversation, the thread's session keeps every original message, searchable.
 *
 *   graph.addNode('compact', compactMessages({ compressor })).addEdge('compact', 'agent')
 */
export function compactMessages(options: CompactionOptions) {
  const channel = options.channel ?? DEFAULT_MESSAGES_CHANNEL
  return async (state: Record<string, unknown>): Promise<Record<string, BaseMessage[]>> => {
    const messages = messagesOf(state[channel])
    const chats = messages.map(toChatMessage)
    const compressible = chats.flatMap((chat, id) =>
      chat === null ? [] : [{ ...chat, id } as CompressibleMessage],
    )
    const result = await options.compressor.compress(compressible)
    if (result === null || result.report.status !== 'compressed') return {}
    const compacted = result.messages.map((message) => {
      const origin = message.id === undefined ? undefined : messages[message.id]
      const chat = message.id === undefined ? null : chats[message.id]
      if (origin !== undefined && chat !== null && chat !== undefined && sameMessage(chat, message))
        return origin
      return fromChatMessage(message)
    })
    return { [channel]: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted] }
  }
}
