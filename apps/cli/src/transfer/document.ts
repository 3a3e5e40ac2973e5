import type { Episode, Session, Store, StoredMessage, UsageReport, UsageTotals } from '@engram/core'

/** One model-call total of a session: the usage report's totals, per purpose and model. */
export interface UsageRow extends UsageTotals {
  purpose: string
  model: string
}

export interface ExportedSession {
  session: Session
  messages: StoredMessage[]
  episodes: Episode[]
  usage: UsageRow[]
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
 * The usage rows of a session from its report. The store reports totals by purpose and by model; when the
 * session used one model (or one purpose) the rows are exact, otherwise each purpose is attributed to the
 * session's main model.
 */
export function usageRows(report: UsageReport, fallbackModel: string | null): UsageRow[] {
  const models = Object.keys(report.byModel)
  const purposes = Object.entries(report.byPurpose)
  if (purposes.length === 1 && models.length > 1) {
    const purpose = purposes[0]?.[0] as string
    return Object.entries(report.byModel).map(([model, totals]) => ({ purpose, model, ...totals }))
  }
  const model = models.length === 1 ? (models[0] as string) : (fallbackModel ?? 'unknown')
  return purposes.map(([purpose, totals]) => ({ purpose, model, ...totals }))
}

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
      usage: usageRows(await store.usage({ sessionId: session.id }), session.model),
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
