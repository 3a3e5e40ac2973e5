import { type CompressibleMessage, textOf } from '@engram/compressor'
import type { LiveItem } from './history.ts'
import { fieldsOf, type RawItem } from './items.ts'

/**
 * The chat messages the compressor works on, one per item, each with the id of the Engram message that
 * holds it (the compressor's summary episode points at the range of ids it replaced).
 */
export function toCompressible(entries: readonly LiveItem[]): CompressibleMessage[] {
  return entries.map(({ item, messageId }) => {
    const { text, ...fields } = fieldsOf(item)
    return { ...fields, content: text, id: messageId } as CompressibleMessage
  })
}

/**
 * Whether the latest turn has a function call still waiting for its result (a run interrupted for a
 * tool approval): compacting now would give it a stub result, and the real one would follow later.
 */
export function awaitingResult(items: readonly RawItem[]): boolean {
  let lastUser = -1
  for (let i = items.length - 1; i >= 0 && lastUser < 0; i--) {
    if (items[i]?.role === 'user' && (items[i]?.type ?? 'message') === 'message') lastUser = i
  }
  const answered = new Set<unknown>()
  for (let i = items.length - 1; i > lastUser; i--) {
    const item = items[i] as RawItem
    if (item.type === 'function_call_result') answered.add(item.callId)
    else if (item.type === 'function_call' && !answered.has(item.callId)) return true
  }
  return false
}

/** A compacted item and the index, in the history, of the item it comes from (none for a new one). */
interface Compacted {
  item: RawItem
  origin: number | undefined
}

const sameCall = (a: CompressibleMessage, b: CompressibleMessage) =>
  JSON.stringify(a.tool_calls ?? null) === JSON.stringify(b.tool_calls ?? null)

/** A message the compressor wrote (its summary, a stub result) as an SDK item. */
function newItem(message: CompressibleMessage, callNames: ReadonlyMap<string, string>): RawItem {
  const text = textOf(message)
  if (message.role === 'tool') {
    const callId = message.tool_call_id ?? ''
    return {
      type: 'function_call_result',
      callId,
      name: callNames.get(callId) ?? '',
      status: 'completed',
      output: { type: 'text', text },
    }
  }
  if (message.role === 'assistant') {
    return {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text }],
    }
  }
  return { role: message.role, content: text }
}

/**
 * The compressor's messages as SDK items. A message it kept unchanged is its item as stored; a tool
 * output it shortened is the item with that text as its output; a call whose arguments it shortened is
 * the call with those arguments; a message it wrote (summary, stub result) is a new item.
 */
function backToItems(
  messages: readonly CompressibleMessage[],
  history: readonly LiveItem[],
  sent: readonly CompressibleMessage[],
): Compacted[] {
  const indexOf = new Map(history.map((entry, index) => [entry.messageId, index]))
  const callNames = new Map<string, string>()
  for (const { item } of history) {
    if (item.type === 'function_call' && typeof item.callId === 'string')
      callNames.set(item.callId, String(item.name ?? ''))
  }
  return messages.map((message) => {
    const origin = message.id === undefined ? undefined : indexOf.get(message.id)
    if (origin === undefined) return { item: newItem(message, callNames), origin }
    const item = (history[origin] as LiveItem).item
    const before = sent[origin] as CompressibleMessage
    if (message.role === 'tool' && textOf(message) !== textOf(before))
      return { item: { ...item, output: { type: 'text', text: textOf(message) } }, origin }
    if (message.tool_calls && !sameCall(message, before)) {
      return { item: { ...item, arguments: message.tool_calls[0]?.function.arguments ?? '' }, origin }
    }
    return { item, origin }
  })
}

/**
 * Makes a compacted history one the SDK and the Responses API accept, whatever the compressor cut:
 * items sharing a `callId` stay only with their call and at least one result (when the call had one),
 * so the call kinds the compressor does not see as calls (computer, shell, patch) never come apart;
 * then a `reasoning` item stays only right before the item it preceded in the history.
 */
function keepPairs(compacted: readonly Compacted[], history: readonly LiveItem[]): Compacted[] {
  const members = new Map<string, number>()
  const firstOf = new Map<string, number>()
  history.forEach(({ item }, index) => {
    if (typeof item.callId !== 'string') return
    members.set(item.callId, (members.get(item.callId) ?? 0) + 1)
    if (!firstOf.has(item.callId)) firstOf.set(item.callId, index)
  })
  const kept = new Map<string, { call: boolean; count: number }>()
  for (const { item, origin } of compacted) {
    if (typeof item.callId !== 'string') continue
    const group = kept.get(item.callId) ?? { call: false, count: 0 }
    group.count++
    if (origin !== undefined && origin === firstOf.get(item.callId)) group.call = true
    kept.set(item.callId, group)
  }
  const whole = (callId: string) => {
    const group = kept.get(callId)
    return group?.call === true && group.count >= Math.min(2, members.get(callId) ?? 1)
  }
  const paired = compacted.filter(({ item }) => typeof item.callId !== 'string' || whole(item.callId))
  return paired.filter(({ item, origin }, i) => {
    if (item.type !== 'reasoning') return true
    const next = paired[i + 1]
    return origin !== undefined && next !== undefined && next.origin === origin + 1
  })
}

/** The items a compacted history holds, from the compressor's messages for the history `history`. */
export function compactedItems(
  messages: readonly CompressibleMessage[],
  history: readonly LiveItem[],
  sent: readonly CompressibleMessage[],
): RawItem[] {
  return keepPairs(backToItems(messages, history, sent), history).map(({ item }) => item)
}
