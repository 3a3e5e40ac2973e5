import type { ChatMessage } from '@engram/core'
import { ITEM_PART, MARKER_PART, type Marker, type RawItem } from './items.ts'

/** The replayed state of an SDK session: its items and the transactions applied since it was cleared. */
export interface History {
  items: RawItem[]
  /** Operation id → digest of the transaction applied under it. */
  operations: Map<string, string>
}

/**
 * Replays a session's messages in insertion order: item parts append, markers drop from the end or
 * clear. Linear in the number of messages. Messages that are neither (written by something else into
 * the same Engram session) are not part of the SDK's history.
 */
export function readHistory(messages: readonly ChatMessage[]): History {
  const items: RawItem[] = []
  let operations = new Map<string, string>()
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as unknown as readonly Record<string, unknown>[]) {
      if (part.type === ITEM_PART) items.push(part.item as RawItem)
      else if (part.type === MARKER_PART) {
        const marker = part as Marker
        if (marker.drop === 'all') {
          items.length = 0
          operations = new Map()
        } else if (typeof marker.drop === 'number') items.length = Math.max(0, items.length - marker.drop)
        if (marker.operation) operations.set(marker.operation.id, marker.operation.digest)
      }
    }
  }
  return { items, operations }
}

/**
 * Where the last `limit` items may start without cutting a pair: not just after a `reasoning` item
 * (the Responses API refuses a reasoning item without the item that follows it) and not after the
 * call of a result inside the window (items sharing a `callId`: the first is the call, the later ones
 * its results). Moves the start later, so at most `limit` items come back. Linear.
 */
export function windowStart(items: readonly RawItem[], limit: number): number {
  const n = items.length
  const firstWithCallId = new Map<string, number>()
  // earliest[i]: the smallest index of a call whose result lies at i or later.
  const earliest = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY)
  const callOf = items.map((item, index) => {
    const callId = typeof item.callId === 'string' ? item.callId : undefined
    if (callId === undefined) return Number.POSITIVE_INFINITY
    const first = firstWithCallId.get(callId)
    if (first === undefined) firstWithCallId.set(callId, index)
    return first ?? Number.POSITIVE_INFINITY
  })
  for (let i = n - 1; i >= 0; i--) earliest[i] = Math.min(earliest[i + 1] as number, callOf[i] as number)
  for (let start = Math.max(0, n - limit); start < n; start++) {
    const afterReasoning = start > 0 && items[start - 1]?.type === 'reasoning'
    if (!afterReasoning && (earliest[start] as number) >= start) return start
  }
  return n
}
