import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** Events one session keeps for a client that reconnects with Last-Event-ID; older ones are dropped. */
const EVENTS_KEPT = 200

/**
 * The events of one session's SSE streams, in memory and bounded, so a client whose connection dropped
 * mid-response gets the rest when it reconnects (resumable streams). Event ids are `<stream>:<n>`.
 */
export class SessionEvents implements EventStore {
  private next = 0
  private readonly events: { id: EventId; stream: StreamId; message: JSONRPCMessage }[] = []

  async storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${stream}:${this.next++}`
    this.events.push({ id, stream, message })
    if (this.events.length > EVENTS_KEPT) this.events.shift()
    return id
  }

  async getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    return this.events.find((event) => event.id === id)?.stream
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const at = this.events.findIndex((event) => event.id === lastEventId)
    if (at < 0) return ''
    const stream = (this.events[at] as { stream: StreamId }).stream
    for (const event of this.events.slice(at + 1))
      if (event.stream === stream) await send(event.id, event.message)
    return stream
  }
}
