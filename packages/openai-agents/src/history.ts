import type { StoredMessage } from '@engram/core'
import { ITEM_PART, MARKER_PART, type Marker, type Operation, type RawItem } from './items.ts'

/** An item of the history and the id of the Engram message that holds it (the handle markers drop by). */
export interface LiveItem {
  item: RawItem
  messageId: number
}

/** The replayed state of an SDK session: its items and the transactions applied since it was cleared. */
export interface History {
  entries: LiveItem[]
  /** Operation id → digest of the transaction applied under it. */
  operations: Map<string, string>
  /** The batches whose markers applied. */
  applied: Set<string>
  /** How many times the session was cleared: operation ids are forgotten, and may be used again, after each. */
  clears: number
}

export const itemsOf = (history: History): RawItem[] => history.entries.map((entry) => entry.item)

/**
 * Replays a session's messages in insertion order. Item parts append; a marker clears the history or
 * removes the items it names by message id, and records its operation. A marker whose `tail` is not the
 * last item any more, or naming an item that is no longer there, lost a race with another writer (it
 * read a history that changed before it was written): it is void, with the items of its batch, so a
 * stale change never removes the wrong item.
 * Items of a batch whose marker was never written (a reused operation id racing the first use) are
 * left out too. Messages that are neither (written by something else into the same Engram session) are
 * not part of the SDK's history. Linear in the number of messages.
 */
export function readHistory(messages: readonly StoredMessage[]): History {
  const live = new Map<number, RawItem>()
  // Message ids in insertion order; dead ones are popped off the end when the last live id is asked.
  const order: number[] = []
  const lastLive = (): number | null => {
    while (order.length > 0 && !live.has(order.at(-1) as number)) order.pop()
    return order.at(-1) ?? null
  }
  let operations = new Map<string, string>()
  const applied = new Set<string>()
  let clears = 0
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as unknown as readonly Record<string, unknown>[]) {
      if (part.type === ITEM_PART) {
        const batch = typeof part.batch === 'string' ? part.batch : undefined
        if (batch !== undefined && !applied.has(batch)) continue
        live.set(message.id, part.item as RawItem)
        order.push(message.id)
      } else if (part.type === MARKER_PART) {
        const marker = part as Marker
        if (marker.drop === 'all') {
          live.clear()
          order.length = 0
          operations = new Map()
          clears++
        } else {
          // Void: the history changed after the writer read it.
          if (marker.tail !== undefined && marker.tail !== lastLive()) continue
          if (marker.drop !== undefined && !marker.drop.every((id) => live.has(id))) continue
          for (const id of marker.drop ?? []) live.delete(id)
        }
        if (marker.batch !== undefined) applied.add(marker.batch)
        for (const operation of [
          ...(marker.operations ?? []),
          ...(marker.operation ? [marker.operation] : []),
        ])
          operations.set(operation.id, operation.digest)
      }
    }
  }
  // A Map iterates in insertion order, which is the messages' order.
  const entries = [...live].map(([messageId, item]) => ({ item, messageId }))
  return { entries, operations, applied, clears }
}

/** The operations of a history, as a marker carries them into a child session. */
export const operationList = (history: History): Operation[] =>
  [...history.operations].map(([id, digest]) => ({ id, digest }))

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
