import type { SessionLine } from '@engram/agent'

/** The fields of a session a client needs to refer to it, its start as an ISO time. */
export function sessionSummary(session: SessionLine) {
  return {
    id: session.id,
    title: session.title,
    source: session.source,
    startedAt: new Date(session.startedAt).toISOString(),
    messageCount: session.messageCount,
  }
}
