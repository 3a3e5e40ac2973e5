import type { ChatMessage } from '@engram/core'

/** Only the wire keys: stored rows also carry id, session, time and token count, which the APIs refuse. */
export function wire(message: ChatMessage): ChatMessage {
  const { role, content, tool_calls, tool_call_id, name } = message
  return {
    role,
    content,
    ...(tool_calls?.length ? { tool_calls } : {}),
    ...(tool_call_id === undefined ? {} : { tool_call_id }),
    ...(name === undefined ? {} : { name }),
  } as ChatMessage
}
