import { randomUUID } from 'node:crypto'
import type { ChatMessage, ToolCall } from '@engram/core'
import type { ChatResult } from '../providers/types.ts'

/** The name stored for a tool call that came without one; no tool has it, so the call is answered with an error. */
export const UNNAMED_TOOL = 'unnamed_tool'

type Answer = ChatResult['message']

/** Arguments as the JSON text the wire format wants: absent ones are `{}`, an object is serialised. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return '{}'
  return JSON.stringify(value) ?? '{}'
}

/**
 * The tool calls of `raw` in the wire shape; ids that are empty or already in `taken` get `freshId(i)`, and
 * every id used is added to `taken`. `sentIds[i]` is the id the model sent for `calls[i]` ('' for none).
 */
function wireCalls(
  raw: unknown,
  taken: Set<string>,
  freshId: (index: number) => string,
): { calls: ToolCall[]; sentIds: string[] } {
  const calls: ToolCall[] = []
  const sentIds: string[] = []
  for (const entry of Array.isArray(raw) ? (raw as unknown[]) : []) {
    if (typeof entry !== 'object' || entry === null) continue
    const { id, function: fn } = entry as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }
    const name = typeof fn?.name === 'string' && fn.name.trim() ? fn.name : UNNAMED_TOOL
    const sent = typeof id === 'string' ? id : ''
    const callId = !sent || taken.has(sent) ? freshId(calls.length) : sent
    taken.add(callId)
    sentIds.push(sent)
    calls.push({ id: callId, type: 'function', function: { name, arguments: argumentsText(fn?.arguments) } })
  }
  return { calls, sentIds }
}

function withCalls<M extends ChatMessage>(message: M, calls: ToolCall[]): M {
  const { tool_calls: _, ...rest } = message
  const content =
    typeof message.content === 'string' || Array.isArray(message.content) ? message.content : null
  return (
    calls.length > 0 ? { ...rest, content, tool_calls: calls } : { ...rest, content: content ?? '' }
  ) as M
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
  if (raw === undefined || raw === null) return withCalls({ ...message, role: 'assistant' }, [])
  const taken = new Set<string>()
  for (const m of earlier) for (const call of m.tool_calls ?? []) taken.add(call.id)
  const fresh = () => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`
  return withCalls({ ...message, role: 'assistant' }, wireCalls(raw, taken, fresh).calls)
}

/**
 * A stored history with the same repair applied to every assistant message (for rows written before the
 * answers were normalised, or by another tool): replaced ids are deterministic (`call_fixed_<message>_<n>`)
 * so the prompt stays the same from one request to the next, and the tool results that follow take the new
 * id of the call they answer. Messages that need nothing are returned as they are. Linear in the history.
 */
export function normaliseHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const taken = new Set<string>()
  /** For the results after the latest assistant message: the ids its calls had → the ids they have now, in order. */
  let answers = new Map<string, string[]>()
  return messages.map((message, index) => {
    if (message.role === 'tool') {
      const fresh = answers.get(message.tool_call_id ?? '')?.shift()
      return fresh === undefined || fresh === message.tool_call_id
        ? message
        : { ...message, tool_call_id: fresh }
    }
    if (message.role !== 'assistant') return message
    answers = new Map()
    const original: unknown = message.tool_calls
    if (!Array.isArray(original)) return message
    const { calls, sentIds } = wireCalls(original, taken, (n) => `call_fixed_${index}_${n}`)
    calls.forEach((call, i) => {
      const sent = sentIds[i] as string
      const ids = answers.get(sent)
      if (ids) ids.push(call.id)
      else answers.set(sent, [call.id])
    })
    const same =
      calls.length === original.length &&
      calls.every((call, i) => {
        const before = original[i] as ToolCall
        return (
          before.id === call.id &&
          before.type === 'function' &&
          before.function.name === call.function.name &&
          before.function.arguments === call.function.arguments
        )
      })
    return same ? message : withCalls(message, calls)
  })
}
