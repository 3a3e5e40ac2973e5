import type { ChatMessage } from '@engram/core/types'

/** What the repair phase changed. */
export interface RepairStats {
  /** Tool results dropped because no call right before them asked for them. */
  droppedToolResults: number
  /** Stub results added for tool calls whose result was missing. */
  stubbedToolCalls: number
}

/** Content of the result given to a call whose real result is gone. */
export const MISSING_RESULT_STUB = '[no result: the output of this tool call was not kept in the context]'

/**
 * Phase 4: makes tool pairing valid for the OpenAI and Anthropic APIs. Every assistant message with
 * `tool_calls` is followed directly by exactly one result per call (a stub for a missing one); tool results that
 * do not answer a call of the assistant message right before them, and repeated results, are dropped.
 */
export function repairToolPairs<M extends ChatMessage>(
  messages: readonly M[],
): { messages: (M | ChatMessage)[]; stats: RepairStats } {
  const stats: RepairStats = { droppedToolResults: 0, stubbedToolCalls: 0 }
  const result: (M | ChatMessage)[] = []
  let index = 0
  while (index < messages.length) {
    const message = messages[index] as M
    index++
    if (message.role === 'tool') {
      stats.droppedToolResults++
      continue
    }
    result.push(message)
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue
    const pending = new Set(message.tool_calls.map((call) => call.id))
    while (index < messages.length && messages[index]?.role === 'tool') {
      const toolResult = messages[index] as M
      index++
      if (pending.delete(toolResult.tool_call_id ?? '')) result.push(toolResult)
      else stats.droppedToolResults++
    }
    for (const id of pending) {
      result.push({ role: 'tool', tool_call_id: id, content: MISSING_RESULT_STUB })
      stats.stubbedToolCalls++
    }
  }
  return { messages: result, stats }
}
