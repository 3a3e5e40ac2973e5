/**
 * The conversation-window index (SQLite; migration 0008): one FTS5 row per message holding the indexed
 * text of the message before it in its session, its own and the one after (each cut to
 * WINDOW_MEMBER_CHARS).
 *
 * Why: in chat the answer is usually the reply to the turn that shares the question's words, so a turn
 * is scored with the best window that holds it (search/rank.ts). Why off the append path: a trigger that
 * rewrites the previous message's window on every append halved the append rate
 * (eval/window-index-experiment.ts). So an append writes only the message, and windows are indexed in
 * batches — when the store has been idle for WINDOW_IDLE_MS, when a session ends, is continued or
 * imported, and when the store closes — in one transaction per batch, each session from where its mark (window_marks) stood. A message's
 * window is indexed once the message after it exists (it never changes after that); what is not indexed
 * yet is windowed at query time from the turns' own scores (conversation-search.ts), so a search finds
 * the same answers before a batch has run. PostgreSQL has no window index: it always windows at query time.
 */
import type { Statement } from '../driver.ts'
import type { StoreContext } from './context.ts'

/** How long a store goes without an append before it indexes the windows of the sessions appended to. */
export const WINDOW_IDLE_MS = 200
/** Characters of each message a window indexes: a long tool result adds its start, not all of it. */
const WINDOW_MEMBER_CHARS = 200

// The agent's retrieval traffic adds no words to its neighbours' windows (its echoes of a question are not
// the conversation), and has no window of its own: it is never a search's centre unless asked for.
const MEMBER_TEXT = `CASE WHEN retrieval IS NULL THEN substr(coalesce(search_text, content, ''), 1, ${WINDOW_MEMBER_CHARS}) ELSE '' END`
const MARK = '(SELECT indexed_to FROM window_marks WHERE session_id = ?)'

/**
 * The statements that index a session's windows past its mark, up to its second-to-last message (the
 * last one's window waits for its next message), and move the mark. Five parameters: the session id.
 */
function indexSessionStatements(sessionId: string): Statement[] {
  return [
    {
      sql: `INSERT INTO message_windows_fts (rowid, body)
        SELECT id, body FROM (
          SELECT id, retrieval, lead(id) OVER w AS next_id,
            coalesce(lag(t) OVER w || ' ', '') || t || coalesce(' ' || lead(t) OVER w, '') AS body
          FROM (SELECT id, retrieval, ${MEMBER_TEXT} AS t FROM messages
            WHERE session_id = ? AND id >= coalesce(${MARK}, 0))
          WINDOW w AS (ORDER BY id))
        WHERE next_id IS NOT NULL AND id > coalesce(${MARK}, 0) AND retrieval IS NULL`,
      params: [sessionId, sessionId, sessionId],
    },
    {
      sql: `INSERT INTO window_marks (session_id, indexed_to)
        SELECT ?, id FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT 1 OFFSET 1
        ON CONFLICT (session_id) DO UPDATE SET indexed_to = excluded.indexed_to`,
      params: [sessionId, sessionId],
    },
  ]
}

/**
 * Indexes the windows of the given sessions in one transaction (nothing on PostgreSQL). Unless `wait`,
 * it gives up at once when another connection holds the write lock, and returns false.
 */
export async function indexWindows(
  ctx: StoreContext,
  sessionIds: Iterable<string>,
  wait = true,
): Promise<boolean> {
  if (ctx.dialect === 'postgres') return true
  const statements = [...sessionIds].flatMap(indexSessionStatements)
  if (statements.length === 0) return true
  const action = 'Indexing conversation windows'
  if (!wait) return ctx.writeUnlessLocked(statements, action)
  await ctx.write(statements, action)
  return true
}

/** Every session whose windows lag behind its messages (after a crash lost a batch, or an upgrade). */
export async function laggingSessions(ctx: StoreContext): Promise<string[]> {
  if (ctx.dialect === 'postgres') return []
  const rows = await ctx.read<{ id: string }>(
    {
      sql: `SELECT s.id FROM sessions s LEFT JOIN window_marks w ON w.session_id = s.id
        WHERE s.message_count > 1 AND coalesce(w.indexed_to, 0) <
          (SELECT id FROM messages WHERE session_id = s.id ORDER BY id DESC LIMIT 1 OFFSET 1)`,
    },
    'Reading sessions to index',
  )
  return rows.map((row) => row.id)
}

/** Drops every window and mark (the windows are rebuilt from the messages by indexWindows). */
export const clearWindowsStatements = (): Statement[] => [
  { sql: "INSERT INTO message_windows_fts (message_windows_fts) VALUES ('delete-all')" },
  { sql: 'DELETE FROM window_marks' },
]

/**
 * Runs the batches: a session appended to is indexed once the store has had no append for
 * WINDOW_IDLE_MS (so a stream of appends never waits for indexing), a session that ends, is continued
 * or imported at once after that write, and what is left when the store closes. Batches are best-effort:
 * a failed or refused one leaves its sessions to the query-time windows and the next batch. Only the
 * batch at close waits for another process's write lock: the others give up at once and are tried again
 * WINDOW_IDLE_MS later, because on the synchronous drivers a wait would stall the whole process (every
 * search and append of it) for up to the busy timeout, for work nobody is waiting on.
 */
export class WindowIndexer {
  private readonly dirty = new Set<string>()
  private lastAppend = 0
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(private readonly ctx: StoreContext) {}

  /** Notes an append to `sessionId` (called before its write; costs a set insert and a clock read). */
  appended(sessionId: string): void {
    if (this.ctx.dialect === 'postgres' || typeof sessionId !== 'string') return
    this.dirty.add(sessionId)
    this.lastAppend = Date.now()
    if (this.timer === null) this.arm(WINDOW_IDLE_MS)
  }

  /** Indexes `sessionIds` (and whatever is pending) right after the current write has returned. */
  soon(...sessionIds: string[]): void {
    if (this.ctx.dialect === 'postgres') return
    for (const id of sessionIds) this.dirty.add(id)
    setImmediate(() => void this.flush())
  }

  /**
   * Indexes what is pending now (the store closing): the timer is dropped, and the batch is started as
   * an operation before this returns, so a close() called next waits for it.
   */
  close(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    return this.flush(true)
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.tick(), ms)
    this.timer.unref?.()
  }

  private tick(): void {
    this.timer = null
    const idle = Date.now() - this.lastAppend
    if (idle < WINDOW_IDLE_MS) this.arm(WINDOW_IDLE_MS - idle)
    else void this.flush()
  }

  private async flush(wait = false): Promise<void> {
    if (this.dirty.size === 0) return
    const sessions = [...this.dirty]
    this.dirty.clear()
    const done = await this.ctx.operation(() => indexWindows(this.ctx, sessions, wait)).catch(() => true)
    if (done) return
    // Locked by another process: the same sessions, and any appended to since, in a while.
    for (const id of sessions) this.dirty.add(id)
    if (this.timer === null) this.arm(WINDOW_IDLE_MS)
  }
}

export interface WindowScore {
  id: number
  score: number
}

/**
 * How far apart (in message ids, per candidate) a question's candidates may lie for the window index to
 * score them: FTS5 walks the doclists of the question's words between the lowest and the highest
 * candidate id (it does not seek to each id), so candidates spread over a large store (an unscoped
 * search for common words) would cost a walk of the whole index. Those are windowed at query time.
 */
const WINDOW_SPAN_PER_CANDIDATE = 64

/**
 * The BM25 scores (higher is better) of the indexed windows centred on `ids` that match `match`, or
 * null when the ids lie too far apart for the lookup to be cheap (see WINDOW_SPAN_PER_CANDIDATE) and on
 * PostgreSQL: the caller then windows them at query time.
 */
export async function windowScores(
  ctx: StoreContext,
  match: string,
  ids: readonly number[],
): Promise<WindowScore[] | null> {
  if (ctx.dialect === 'postgres' || match === '' || ids.length === 0) return null
  let low = Number.POSITIVE_INFINITY
  let high = Number.NEGATIVE_INFINITY
  for (const id of ids) {
    low = Math.min(low, id)
    high = Math.max(high, id)
  }
  if (high - low > WINDOW_SPAN_PER_CANDIDATE * ids.length) return null
  return ctx.read<WindowScore>(
    {
      sql: `SELECT rowid AS id, -rank AS score FROM message_windows_fts
        WHERE message_windows_fts MATCH ? AND rowid >= ? AND rowid <= ?
          AND rowid IN (${ids.map(() => '?').join(', ')})`,
      params: [match, low, high, ...ids],
    },
    'Searching messages',
  )
}

/**
 * Whether a message of this store (not a tool result) was written by `name` (the OpenAI `name` field): such a word in a
 * question names who spoke, and is matched by speaker rather than by text. One probe of the partial
 * index on named messages (migration 0008); false on PostgreSQL, which has no such index.
 */
export async function isSpeaker(ctx: StoreContext, name: string): Promise<boolean> {
  if (ctx.dialect === 'postgres') return false
  const rows = await ctx.read<{ n: number }>(
    {
      sql: "SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE name = ? AND role <> 'tool' LIMIT 1)",
      params: [name],
    },
    'Searching messages',
  )
  return (rows[0]?.n ?? 0) > 0
}

/** The SQL expression (over messages `t`) that is 1 when `t`'s window is indexed; 0 on PostgreSQL. */
export const windowIndexedSql = (ctx: StoreContext): string =>
  ctx.dialect === 'postgres'
    ? '0'
    : 'coalesce((SELECT t.id <= wm.indexed_to FROM window_marks wm WHERE wm.session_id = t.session_id), 0)'
