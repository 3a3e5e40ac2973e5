import { randomUUID } from 'node:crypto'
import type { ChatMessage, ToolCall } from '@engram/core'
import type { ChatResult } from '../providers/types.ts'

/** The name stored for a tool call that came without one; no tool has it, so the call is answered with an error. */
export const UNNAMED_TOOL = 'unnamed_tool'

type Answer = ChatResult['message']

const freshId = () => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`

/** Arguments as the JSON text the wire format wants: absent ones are `{}`, an object is serialised. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return '{}'
  return JSON.stringify(value) ?? '{}'
}

/**
 * A model's answer in a shape that can be stored and sent back to either vendor, whatever the model sent:
 * every tool call gets `type: 'function'`, a non-empty name ({@link UNNAMED_TOOL} when missing), arguments
 * as JSON text (`null` → `{}`, an object serialised) and an id that is non-empty and unique in the
 * conversation (`earlier`, plus the other calls of this answer); entries that are not objects are dropped.
 * Content that is neither text, parts nor null becomes null. Linear in the answer and `earlier`.
 */
export function normaliseAnswer(message: Answer, earlier: readonly ChatMessage[]): Answer {
  const raw: unknown = message.tool_calls
  const content =
    typeof message.content === 'string' || Array.isArray(message.content) ? message.content : null
  if (raw === undefined || raw === null) return { ...message, role: 'assistant', content }
  const taken = new Set<string>()
  for (const m of earlier) for (const call of m.tool_calls ?? []) taken.add(call.id)
  const calls: ToolCall[] = []
  for (const entry of Array.isArray(raw) ? (raw as unknown[]) : []) {
    if (typeof entry !== 'object' || entry === null) continue
    const { id, function: fn } = entry as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }
    const name = typeof fn?.name === 'string' && fn.name.trim() ? fn.name : UNNAMED_TOOL
    const callId = typeof id === 'string' && id && !taken.has(id) ? id : freshId()
    taken.add(callId)
    calls.push({ id: callId, type: 'function', function: { name, arguments: argumentsText(fn?.arguments) } })
  }
  const { tool_calls: _, ...rest } = message
  return calls.length > 0
    ? { ...rest, role: 'assistant', content, tool_calls: calls }
    : { ...rest, role: 'assistant', content: content ?? '' }
}
