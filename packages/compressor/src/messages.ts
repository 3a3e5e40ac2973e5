import type { ChatMessage, ToolCall } from '@engram/core/types'

/** A chat message as the compressor takes it: the wire shape, plus the store's row id when it has one. */
export type CompressibleMessage = ChatMessage & { id?: number }

/** The text of a message's content: string content as is, text parts joined, other parts left out. */
export function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content
  if (!Array.isArray(message.content)) return ''
  const texts: string[] = []
  for (const part of message.content) {
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text)
  }
  return texts.join('\n')
}

/** Every tool call of the conversation by id, to name the tool behind a result. */
export function indexToolCalls(messages: readonly ChatMessage[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>()
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call)
  }
  return calls
}

/** Argument names that identify what a call acted on, most telling first. */
const KEY_ARGUMENTS = [
  'path',
  'file_path',
  'filepath',
  'file',
  'filename',
  'command',
  'cmd',
  'query',
  'pattern',
  'url',
]
const KEY_ARGUMENT_MAX_CHARS = 80

/** `read_file(src/a.ts)`: the tool name and its most telling argument, for one-line mentions of a call. */
export function describeCall(call: ToolCall | undefined): string {
  if (!call) return 'unknown tool'
  const name = call.function.name
  let args: unknown
  try {
    args = JSON.parse(call.function.arguments)
  } catch {
    return `${name}(…)`
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return `${name}()`
  const record = args as Record<string, unknown>
  const key =
    KEY_ARGUMENTS.find((k) => typeof record[k] === 'string') ??
    Object.keys(record).find((k) => typeof record[k] === 'string')
  if (key === undefined) return `${name}()`
  const value = (record[key] as string).replace(/\s+/g, ' ').trim()
  const shown = value.length > KEY_ARGUMENT_MAX_CHARS ? `${value.slice(0, KEY_ARGUMENT_MAX_CHARS)}…` : value
  return `${name}(${shown})`
}
