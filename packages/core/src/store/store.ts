import type { EngramDatabase } from '../database.ts'
import type {
  AppendedOnce,
  ChatMessage,
  ContinuedSession,
  ContinueSessionInput,
  DailyUsage,
  DailyUsageOptions,
  Episode,
  ImportSessionInput,
  ImportSessionResult,
  IntegrityReport,
  ListSessionsOptions,
  MessageInput,
  MessagesPageOptions,
  NewEpisode,
  NewSession,
  Page,
  PruneEpisodesOptions,
  PrunePreview,
  PruneSessionsOptions,
  ReadAroundOptions,
  RefMessageInput,
  ResolveSessionOptions,
  SchemaMigrations,
  SearchHit,
  SearchOptions,
  Session,
  SessionExport,
  SessionModelConfig,
  StoredMessage,
  UsageGroup,
  UsageRecord,
  UsageReport,
} from '../types.ts'
import type { StoreContext } from './context.ts'
import { addEpisode, getEpisodes, pruneEpisodes } from './episodes.ts'
import { GraphStorage } from './graph.ts'
import { previewPrune, pruneSessions, rebuildSearchIndex, vacuum } from './maintenance.ts'
import * as messages from './messages.ts'
import { readAround } from './read-around.ts'
import { search, searchPage } from './search.ts'
import { exportSession } from './session-export.ts'
import { importSession } from './session-import.ts'
import { resolveSession } from './session-reference.ts'
import * as sessions from './sessions.ts'
import { readDailyUsage, readUsage, readUsageGroups, usageStatements } from './usage.ts'

/** Each store's context, for the evaluation harness's entry (evaluation.ts) only: not part of the Store. */
const contexts = new WeakMap<Store, StoreContext>()

/** The context a store runs on (evaluation.ts); the package does not export it. */
export function contextOf(store: Store): StoreContext {
  const ctx = contexts.get(store)
  if (ctx === undefined) throw new TypeError('Not a store opened by @engram/core.')
  return ctx
}

/**
 * The session store: a thin facade over one module per table. Every write is one committed transaction
 * (retried while another connection holds the lock); reads return plain objects. Arguments are validated
 * before any SQL runs: a wrong one is an EngramError `INVALID_ARGUMENT` (`INVALID_MESSAGE` for messages)
 * naming the field. Every method fails with `STORE_CLOSED` once close() has been called, and with
 * `DATABASE_*` codes when SQLite does (busy after every retry, read-only, corrupt).
 */
export class Store {
  /** LangGraph's checkpoints and long-term items (`@engram/langgraph` builds on them). */
  readonly graph: GraphStorage

  constructor(
    private readonly ctx: StoreContext,
    /**
     * How many migrations the schema had when openStore found it and has after applying the pending ones
     * (`engram migrate` reports both); a store opened on an up-to-date database has them equal.
     */
    readonly migrations: SchemaMigrations,
  ) {
    this.graph = new GraphStorage(ctx)
    contexts.set(this, ctx)
  }

  /**
   * A typed drizzle database over the store's own connection and tables (`@engram/core/schema`), for
   * queries of your own: `store.db.select().from(sessions)...`. Each query is one statement on the
   * store's connection (reads see the store's writes); write through the Store's methods, which keep the
   * search index, counters and validation right. Closed with the store.
   */
  get db(): EngramDatabase {
    return this.ctx.db
  }

  /** The driver's name (`better-sqlite3`, `libsql`, or a custom driver's). */
  get driverName(): string {
    return this.ctx.driver.name
  }

  /**
   * Creates a session and returns it. `id` defaults to a new UUID (`SESSION_EXISTS` if taken); a
   * `parentSessionId` must name a session of the same user (`SESSION_NOT_FOUND` otherwise). One INSERT.
   */
  createSession(input: NewSession): Promise<Session> {
    return this.ctx.operation(() => sessions.createSession(this.ctx, input))
  }

  /** The session, or null when there is none with this id. One indexed read. */
  getSession(id: string): Promise<Session | null> {
    return this.ctx.operation(() => sessions.getSession(this.ctx, id))
  }

  /**
   * Sessions newest first, filtered by source and user, `limit` (default 50) after `offset`. Offset pages
   * can repeat rows while sessions are being added: listSessionsPage pages by cursor instead. One read.
   */
  async listSessions(options: ListSessionsOptions = {}): Promise<Session[]> {
    return (await this.listSessionsPage(options)).items
  }

  /** Like listSessions, with the `nextCursor` that continues after the page's last session (keyset). */
  listSessionsPage(options: ListSessionsOptions = {}): Promise<Page<Session>> {
    return this.ctx.operation(() => sessions.listSessions(this.ctx, options))
  }

  /**
   * The session a reference names: `latest` (the newest), a full id, or the start of exactly one id (as
   * short ids are shown), among the sessions of `source` and `userId` when given: a session outside them is
   * as good as missing. `SESSION_NOT_FOUND` when none matches, `INVALID_ARGUMENT` naming two of them when
   * a prefix is ambiguous. At most two indexed reads.
   */
  resolveSession(reference: string, options?: ResolveSessionOptions): Promise<Session> {
    return this.ctx.operation(() => resolveSession(this.ctx, reference, options))
  }

  /**
   * Writes a whole session from elsewhere (an export, another agent's database) in one transaction,
   * keeping its id, times and end: messages, usage totals (one row per group, with its call count) and
   * episodes. A session already present is left untouched and nothing is written (`created: false`), so an
   * import can run again. The parent must exist for the same user (`SESSION_NOT_FOUND`, nothing written).
   */
  importSession(input: ImportSessionInput): Promise<ImportSessionResult> {
    return this.ctx.operation(() => importSession(this.ctx, input))
  }

  /**
   * Everything the session holds, as importSession takes it back (copying a store to another, on another
   * engine): the row, messages with their refs, episodes with hit statistics, model calls as recorded.
   * Null for an unknown id. Four indexed reads of this session's rows.
   */
  exportSession(id: string): Promise<SessionExport | null> {
    return this.ctx.operation(() => exportSession(this.ctx, id))
  }

  /** Marks the session ended; the first reason given wins and later calls change nothing. One UPDATE. */
  endSession(id: string, reason: string): Promise<void> {
    return this.ctx.operation(() => sessions.endSession(this.ctx, id, reason))
  }

  /**
   * Makes an ended session live again (end time and reason cleared), as resuming it does: a session that is
   * being written to must not look old to `pruneSessions`. The next `endSession` records the new end.
   */
  reopenSession(id: string): Promise<void> {
    return this.ctx.operation(() => sessions.reopenSession(this.ctx, id))
  }

  /** Stores the assembled system prompt verbatim, so a continuing session can reuse it byte for byte. */
  setSystemPrompt(id: string, prompt: string): Promise<void> {
    return this.ctx.operation(() => sessions.setSystemPrompt(this.ctx, id, prompt))
  }

  /**
   * Records the model settings a session runs with (its window, reply budget, model), replacing what it
   * had; null clears them. A session continued by compression keeps its parent's.
   */
  setModelConfig(id: string, config: SessionModelConfig | null): Promise<void> {
    return this.ctx.operation(() => sessions.setModelConfig(this.ctx, id, config))
  }

  /**
   * Sessions from the root of the compression chain down to `id` (`SESSION_NOT_FOUND` if unknown). The
   * chain never leaves the session's user. One recursive read, linear in the chain's length.
   */
  getLineage(id: string): Promise<Session[]> {
    return this.ctx.operation(() => sessions.getLineage(this.ctx, id))
  }

  /**
   * Follows the newest child of each session forward (children of the same user only) and returns the
   * id at the end of the chain. One recursive read.
   */
  resolveTip(id: string): Promise<string> {
    return this.ctx.operation(() => sessions.resolveTip(this.ctx, id))
  }

  /**
   * Continues a session in a new child session, in one transaction: ends the parent with `endReason`
   * (unless it has ended already), creates the child with the parent's source, user, model, title and
   * system prompt and `parentSessionId` pointing back, writes `messages` into the child and, when given,
   * stores `episode` on the parent (the summary of the parent's messages the child replaces). All or nothing.
   */
  continueSession(parentId: string, input: ContinueSessionInput): Promise<ContinuedSession> {
    return this.ctx.operation(() => messages.continueSession(this.ctx, parentId, input))
  }

  /** Writes one message in its own committed transaction and returns it with its id. */
  async appendMessage(sessionId: string, input: MessageInput): Promise<StoredMessage> {
    const [stored] = await this.appendMessages(sessionId, [input])
    return stored as StoredMessage
  }

  /**
   * Writes the messages in one transaction: all of them or, on any error, none (`INVALID_MESSAGE` before
   * anything is written, `SESSION_NOT_FOUND` for an unknown session). One prepared INSERT per message.
   */
  appendMessages(sessionId: string, inputs: readonly MessageInput[]): Promise<StoredMessage[]> {
    return this.ctx.operation(() => messages.appendMessages(this.ctx, sessionId, inputs))
  }

  /**
   * Like appendMessages for a writer with its own message ids (an MCP client logging its turns): each
   * message carries a `ref`, unique within the session, and one whose ref the session already holds is
   * skipped, so a retried write stores nothing twice, also when two processes retry at once. One
   * transaction; `SESSION_NOT_FOUND` for an unknown session.
   */
  appendMessagesOnce(sessionId: string, inputs: readonly RefMessageInput[]): Promise<AppendedOnce> {
    return this.ctx.operation(() => messages.appendMessagesOnce(this.ctx, sessionId, inputs))
  }

  /** The session's history in insertion order, in the OpenAI chat shape. One indexed read. */
  getMessages(sessionId: string): Promise<ChatMessage[]> {
    return this.ctx.operation(() => messages.getMessages(this.ctx, sessionId))
  }

  /** Like getMessages, with each message's id, timestamp and token count. */
  getStoredMessages(sessionId: string): Promise<StoredMessage[]> {
    return this.ctx.operation(() => messages.getStoredMessages(this.ctx, sessionId))
  }

  /** One page of the session's messages with ids, oldest first (`nextCursor` for the next). One range read. */
  getStoredMessagesPage(sessionId: string, options?: MessagesPageOptions): Promise<Page<StoredMessage>> {
    return this.ctx.operation(() => messages.getStoredMessagesPage(this.ctx, sessionId, options))
  }

  /**
   * A message and up to `before` / `after` (default 2, at most 100) messages of its session around it, in
   * insertion order; empty for an unknown id. Bounded indexed reads, whatever the session's length.
   */
  readAround(messageId: number, options?: ReadAroundOptions): Promise<StoredMessage[]> {
    return this.ctx.operation(() => readAround(this.ctx, messageId, options))
  }

  /**
   * Records one model call (whole token counts, a cost in USD) and adds it to the session's totals, in one
   * transaction. `SESSION_NOT_FOUND` for an unknown session.
   */
  recordUsage(sessionId: string, record: UsageRecord): Promise<void> {
    return this.ctx.operation(async () => {
      const [inserted] = await this.ctx.write(usageStatements(sessionId, record), 'Recording model usage')
      if (inserted?.changes === 0) throw sessions.sessionNotFound(sessionId)
    })
  }

  /** Token and cost totals, overall and by purpose and model, of one session or the whole store. One read. */
  usage(options: { sessionId?: string } = {}): Promise<UsageReport> {
    return this.ctx.operation(() => readUsage(this.ctx, options.sessionId))
  }

  /** Model calls summed by UTC day and purpose (oldest first), of one session or all, within a time range. */
  dailyUsage(options?: DailyUsageOptions): Promise<DailyUsage[]> {
    return this.ctx.operation(() => readDailyUsage(this.ctx, options))
  }

  /**
   * Token and cost totals of one session (or the whole store) per purpose and model, ordered by purpose
   * then model: the rows usage() sums and an export carries. One grouped read.
   */
  usageGroups(options: { sessionId?: string } = {}): Promise<UsageGroup[]> {
    return this.ctx.operation(() => readUsageGroups(this.ctx, options.sessionId))
  }

  /** Deletes the session with its messages, episodes and usage; its children are kept and detached. */
  deleteSession(id: string): Promise<void> {
    return this.ctx.operation(() => sessions.deleteSession(this.ctx, id))
  }

  /**
   * Ranked full-text search (English words; Chinese, Japanese and Korean by pairs of characters). Episodes come before messages; filters
   * run in SQL. The hit counts of returned episodes are updated best-effort: a locked or read-only database
   * skips the count and the search never waits for a writer. A few indexed FTS5 reads.
   */
  search(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    return this.ctx.operation(() => search(this.ctx, query, options))
  }

  /** One page of a search in time order (sort `newest` or `oldest`), continued with its `nextCursor`. */
  searchPage(query: string, options?: SearchOptions): Promise<Page<SearchHit>> {
    return this.ctx.operation(() => searchPage(this.ctx, query, options))
  }

  /** Stores a summary of compressed messages on a session (`SESSION_NOT_FOUND` if unknown). One INSERT. */
  addEpisode(input: NewEpisode): Promise<Episode> {
    return this.ctx.operation(() => addEpisode(this.ctx, input))
  }

  /** The session's episodes, oldest first. */
  getEpisodes(sessionId: string): Promise<Episode[]> {
    return this.ctx.operation(() => getEpisodes(this.ctx, sessionId))
  }

  /** Evicts low-importance, least recently hit episodes until the limits hold; returns how many went. */
  pruneEpisodes(options: PruneEpisodesOptions): Promise<number> {
    return this.ctx.operation(() => pruneEpisodes(this.ctx, options))
  }

  /**
   * Recomputes every row's search text and rebuilds both FTS5 indexes in one transaction: a failure leaves
   * the old index. Reads every message; for repairs, not for normal use.
   */
  rebuildSearchIndex(): Promise<void> {
    return this.ctx.operation(() => rebuildSearchIndex(this.ctx))
  }

  /**
   * Checks the file and both search indexes and reports, never throws: a held write lock is `busy` (not
   * damage), a damaged file `corrupt`, each with the fix. Reads the whole database.
   */
  checkIntegrity(): Promise<IntegrityReport> {
    return this.ctx.operation(() => this.ctx.dialect.checkIntegrity(this.ctx))
  }

  /**
   * Deletes ended sessions older than the cutoff with everything they own and returns how many went. With
   * `dryRun: true` it deletes nothing and returns what it would delete (the sessions, newest ended first).
   */
  pruneSessions(options: PruneSessionsOptions & { dryRun: true }): Promise<PrunePreview>
  pruneSessions(options: PruneSessionsOptions & { dryRun?: false }): Promise<number>
  pruneSessions(options: PruneSessionsOptions & { dryRun?: boolean }): Promise<number | PrunePreview> {
    const { dryRun, ...prune } = options
    return this.ctx.operation<number | PrunePreview>(() =>
      dryRun ? previewPrune(this.ctx, prune) : pruneSessions(this.ctx, prune),
    )
  }

  /** Rewrites the file to reclaim the space of deleted rows (needs the write lock; rewrites the database). */
  vacuum(): Promise<void> {
    return this.ctx.operation(() => vacuum(this.ctx))
  }

  /**
   * Waits for the operations already started, then closes the connection (after a WAL checkpoint on local files). Operations started
   * after close() fail with `STORE_CLOSED`. Calling it again is harmless.
   */
  close(): Promise<void> {
    return this.ctx.close()
  }
}
