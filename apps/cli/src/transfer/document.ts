import {
  EngramError,
  type Episode,
  type ExportedMessage,
  type ModelCall,
  type Session,
  type Store,
  type UsageGroup,
} from '@engram/core'

/**
 * One session of an export. `usage` (totals per purpose and model) is for reading; `modelCalls` (absent
 * in files of older versions) is what an import writes back, each call with its own time.
 */
export interface ExportedSession {
  session: Session
  messages: ExportedMessage[]
  episodes: Episode[]
  usage: UsageGroup[]
  modelCalls?: ModelCall[]
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
    sessions.push(await exportOne(store, session.id))
    watch.onSession?.(session)
  }
  return { format: FORMAT, version: 1, exportedAt: Date.now(), sessions }
}

/** One session whole, as the store exports it, with its usage totals beside its model calls. */
async function exportOne(store: Store, id: string): Promise<ExportedSession> {
  const dump = await store.exportSession(id)
  if (!dump)
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `The session ${id} was deleted during the export. Run it again.`,
    )
  return { ...dump, usage: await store.usageGroups({ sessionId: id }) }
}

/** Sessions read per page while walking a whole store (the page, not the store, is held in memory). */
const PAGE = 500

/**
 * Every session of the store, each whole and parents before children, one at a time: a page of session
 * rows and one session's rows are in memory, plus the ids already given (to place each parent once).
 * A session is read once and each parent is looked up once, so the walk is linear in the store's size.
 */
export async function* storeSessions(store: Store): AsyncGenerator<ExportedSession> {
  const given = new Set<string>()
  for (let cursor: string | undefined; ; ) {
    const page = await store.listSessionsPage({ limit: PAGE, ...(cursor ? { cursor } : {}) })
    for (const session of page.items) {
      // Listing is newest first, so a child usually comes before its parent: give the missing ancestors first.
      const chain: string[] = []
      for (let node: Session | null = session; node && !given.has(node.id); ) {
        chain.push(node.id)
        const parent: string | null = node.parentSessionId
        node = parent === null || given.has(parent) ? null : await store.getSession(parent)
      }
      for (const id of chain.reverse()) {
        given.add(id)
        yield await exportOne(store, id)
      }
    }
    if (page.nextCursor === null) return
    cursor = page.nextCursor
  }
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
