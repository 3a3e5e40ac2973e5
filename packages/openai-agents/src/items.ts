import type { MessageInput, Role, ToolCall } from '@engram/core'

/** The content-part type that carries an Agents SDK item, unchanged, inside an Engram message. */
export const ITEM_PART = 'openai_agents_item'
/** The content-part type of a history marker: removals and operation ids, replayed by `readHistory`. */
export const MARKER_PART = 'openai_agents_history'

/** An Agents SDK `AgentInputItem`, seen as the JSON object it is (unknown kinds included). */
export type RawItem = Record<string, unknown>

/** A history transaction's id and the SHA-256 of its canonical JSON. */
export interface Operation {
  id: string
  digest: string
}

/**
 * What a marker records. `drop` removes the items held by those Engram message ids (`'all'` clears
 * the session); `tail` is the message id of the last item when the writer read the history (null:
 * empty), and the marker applies only if it still is; `batch` names the items written with the marker, which count only when it applies;
 * `operation` is the history transaction the batch applies; `operations` carries the transactions of
 * a compacted parent into its child, so a retried transaction is not applied twice.
 */
export interface Marker {
  drop?: number[] | 'all'
  tail?: number | null
  batch?: string
  operation?: Operation
  operations?: Operation[]
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The text of a content value: a string, a part with `text`/`refusal`/`transcript`, or a list of them. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(textOf).filter(Boolean).join('\n')
  if (value !== null && typeof value === 'object') {
    const part = value as Record<string, unknown>
    return str(part.text) || str(part.refusal) || str(part.transcript)
  }
  return ''
}

function roleOf(item: RawItem): Role {
  if (item.role === 'user' || item.role === 'assistant' || item.role === 'system') return item.role
  if (item.role === 'developer') return 'system'
  return 'assistant'
}

/** What an item is as a chat message: its role, text, and a call or a result of one. */
export interface ItemFields {
  role: Role
  text: string
  tool_calls?: ToolCall[]
  tool_call_id?: string
  name?: string
}

/**
 * The chat-message view of an SDK item: a function call as `tool_calls` (name and arguments), a
 * result as a `tool` message of its call, a message with its text. Reasoning, hosted and
 * computer/shell/patch calls, compaction and kinds this code does not know are assistant text made of
 * whatever text, summary, name and arguments they hold.
 */
export function fieldsOf(item: RawItem): ItemFields {
  const callId = str(item.callId)
  if (item.type === 'function_call' && callId) {
    return {
      role: 'assistant',
      text: '',
      tool_calls: [
        { id: callId, type: 'function', function: { name: str(item.name), arguments: str(item.arguments) } },
      ],
    }
  }
  if (item.type === 'function_call_result' && callId) {
    return {
      role: 'tool',
      tool_call_id: callId,
      text: textOf(item.output),
      ...(str(item.name) ? { name: str(item.name) } : {}),
    }
  }
  if (item.type === undefined || item.type === 'message')
    return { role: roleOf(item), text: textOf(item.content) }
  const text = [textOf(item.summary), textOf(item.content), str(item.name), str(item.arguments)]
    .filter(Boolean)
    .join('\n')
  return { role: 'assistant', text }
}

/**
 * One Engram message per SDK item. The item travels whole in a part of type ITEM_PART; the other
 * fields are its chat-message view (`fieldsOf`), for search and readers of the store.
 * `batch` ties the item to the marker written with it (see `readHistory`).
 */
export function itemToMessage(item: RawItem, batch?: string): MessageInput {
  const { text, ...fields } = fieldsOf(item)
  const raw = { type: ITEM_PART, item, ...(batch === undefined ? {} : { batch }) }
  return { ...fields, content: text ? [{ type: 'text', text }, raw] : [raw] }
}

export function markerMessage(marker: Marker): MessageInput {
  return { role: 'system', content: [{ type: MARKER_PART, ...marker }] }
}
