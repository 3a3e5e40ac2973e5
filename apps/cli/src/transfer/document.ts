import type { Episode, Session, Store, StoredMessage, UsageGroup } from '@engram/core'

export interface ExportedSession {
  session: Session
  messages: StoredMessage[]
  episodes: Episode[]
  usage: UsageGroup[]
}

/** What `engram export` writes and `engram import` reads, whatever the file format. */
export interface ExportDocument {
  format: 'engram-export'
  version: 1
  exportedAt: number
  sessions: ExportedSession[]
}

export const FORMAT = 'engram-export'

/**
 * The whole compression chain that holds `sessionId`, root first, with messages, episodes and usage.
 * `onLineage` learns the chain before its sessions are read (for a progress bar), `onSession` each one read.
 */
export async function exportChain(
  store: Store,
  sessionId: string,
  watch: { onLineage?(lineage: Session[]): void; onSession?(session: Session): void } = {},
): Promise<ExportDocument> {
  const lineage = await store.getLineage(await store.resolveTip(sessionId))
  watch.onLineage?.(lineage)
  const sessions: ExportedSession[] = []
  for (const session of lineage) {
    sessions.push({
      session,
      messages: await store.getStoredMessages(session.id),
      episodes: await store.getEpisodes(session.id),
      usage: await store.usageGroups({ sessionId: session.id }),
    })
    watch.onSession?.(session)
  }
  return { format: FORMAT, version: 1, exportedAt: Date.now(), sessions }
}

/** Sessions ordered so that every parent present comes before its children (lineage can be written). */
export function parentsFirst(sessions: readonly ExportedSession[]): ExportedSession[] {
  const byId = new Map(sessions.map((s) => [s.session.id, s]))
  const ordered: ExportedSession[] = []
  const placed = new Set<string>()
  for (const start of sessions) {
    const chain: ExportedSession[] = []
    for (
      let node: ExportedSession | undefined = start;
      node && !placed.has(node.session.id) && !chain.includes(node);
      node = byId.get(node.session.parentSessionId ?? '')
    ) {
      chain.push(node)
    }
    for (const node of chain.reverse()) {
      placed.add(node.session.id)
      ordered.push(node)
    }
  }
  return ordered
}
