import { createHash } from 'node:crypto'
import type { ChatMessage, MessageInput, ToolCall } from '@engram/core'
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  isBaseMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages'

/** LangChain's message types as Engram's chat roles. */
const ROLES: Record<string, MessageInput['role']> = {
  human: 'user',
  ai: 'assistant',
  tool: 'tool',
  system: 'system',
  developer: 'system',
}

/** The text of a message's content: a string as is, the text parts of an array joined by new lines. */
function messageText(message: BaseMessage): string {
  const { content } = message
  if (typeof content === 'string') return content
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n')
}

function toolCallsOf(message: BaseMessage): ToolCall[] | undefined {
  const calls = (message as AIMessage).tool_calls
  if (!Array.isArray(calls) || calls.length === 0) return undefined
  return calls.map((call) => ({
    id: call.id ?? '',
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
  }))
}

/** A LangChain message as an Engram chat message (null for a type Engram has no role for). */
export function toChatMessage(message: BaseMessage): ChatMessage | null {
  const role = ROLES[message.getType()]
  if (role === undefined) return null
  const content = messageText(message)
  if (role === 'tool') return { role, content, tool_call_id: (message as ToolMessage).tool_call_id }
  if (role === 'assistant') {
    const tool_calls = toolCallsOf(message)
    return tool_calls ? { role, content, tool_calls } : { role, content }
  }
  return { role, content }
}

/** A chat message (the compressor's) as a LangChain message, keeping `id` when given. */
export function fromChatMessage(message: ChatMessage, id?: string): BaseMessage {
  const content = typeof message.content === 'string' ? message.content : ''
  const fields = { content, ...(id === undefined ? {} : { id }) }
  if (message.role === 'tool') return new ToolMessage({ ...fields, tool_call_id: message.tool_call_id })
  if (message.role === 'assistant') {
    const calls = message.tool_calls ?? []
    return new AIMessage({
      ...fields,
      tool_calls: calls.map((call) => ({
        id: call.id,
        name: call.function.name,
        args: JSON.parse(call.function.arguments || '{}') as Record<string, unknown>,
        type: 'tool_call' as const,
      })),
    })
  }
  if (message.role === 'system') return new SystemMessage(fields)
  return new HumanMessage(fields)
}

/**
 * A message's stable id: its own (LangGraph's add_messages reducer gives every message one), else a hash
 * of its type and content, so a message without one is still recognised when it comes back.
 */
export function messageRef(message: BaseMessage): string {
  if (typeof message.id === 'string' && message.id !== '') return message.id
  const body = JSON.stringify([message.getType(), message.content, toolCallsOf(message) ?? null])
  return `sha256:${createHash('sha256').update(body).digest('hex').slice(0, 32)}`
}

/** The LangChain messages of a channel's value (anything else in it is left out). */
export const messagesOf = (value: unknown): BaseMessage[] =>
  Array.isArray(value) ? value.filter((item): item is BaseMessage => isBaseMessage(item)) : []
