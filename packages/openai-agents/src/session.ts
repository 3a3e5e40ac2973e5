import { createHash, randomUUID } from 'node:crypto'
import {
  type CompressibleMessage,
  type CompressionReport,
  type ContextCompressor,
  persistCompression,
} from '@engram/compressor'
import { EngramError, type RefMessageInput, type Store } from '@engram/core'
import type {
  AgentInputItem,
  OpenAIResponsesCompactionArgs,
  OpenAIResponsesCompactionAwareSession,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents'
import { canonicalJson, digestOf } from './canonical.ts'
import { awaitingResult, compactedItems, toCompressible } from './compaction.ts'
import { type History, itemsOf, operationList, readHistory, windowStart } from './history.ts'
import { itemToMessage, type Marker, markerMessage, type RawItem } from './items.ts'

/** The part of the Store the session uses. */
export type EngramSessionStore = Pick<
  Store,
  | 'getSession'
  | 'createSession'
  | 'resolveTip'
  | 'appendMessages'
  | 'appendMessagesOnce'
  | 'getStoredMessages'
  | 'continueSession'
>

/** What a compaction did: the session it ended, the child the conversation continues in, the report. */
export interface CompactionEvent {
  sessionId: string
  childSessionId: string
  report: CompressionReport
}

export interface EngramSessionOptions {
  store: EngramSessionStore
  /** An existing Engram session, or the id to create it with; a new UUID when omitted. */
  sessionId?: string
  /** Stored on a session this creates: `source` (default `openai-agents`), `userId`, `model`, `title`. */
  source?: string
  userId?: string
  model?: string
  title?: string
  /**
   * Compacts the history with Engram's compressor when the runner calls the SDK's compaction hook
   * (`runCompaction`, after each completed turn): any summariser model, any provider. Give it the
   * model's window and, as `fixedTokens`, what each request carries besides the history (the agent's
   * instructions and tool definitions). Without it the hook does nothing.
   */
  compressor?: ContextCompressor
  /** Called after each compaction, once the child session is written. */
  onCompaction?: (event: CompactionEvent) => void
}

/** The session's source when none is given. */
export const DEFAULT_SOURCE = 'openai-agents'

/** How often a removal that lost a race with another writer is tried again on the new history. */
const MAX_ATTEMPTS = 20

const refused = (message: string) => new EngramError('INVALID_ARGUMENT', message)
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** `value` when it is an array of items; otherwise a refusal naming the argument, before anything is read or written. */
function itemList(value: unknown, what: string): readonly AgentInputItem[] {
  if (Array.isArray(value) && value.every((item) => item !== null && typeof item === 'object')) return value
  throw refused(
    `${what} must be an array of items (got ${value === null ? 'null' : Array.isArray(value) ? 'an array holding a non-object' : typeof value}); nothing was changed. Pass [] for no items.`,
  )
}

/**
 * An Agents SDK `Session` kept in an Engram store. Every item is one Engram message, written the
 * moment the SDK hands it over and stored exactly as given (see items.ts), so a killed process loses
 * nothing already added and `store.search` finds what was said. Removals (`popItem`, `clearSession`,
 * `replace_suffix`, rewrites) append a marker naming the removed items instead of deleting: the
 * history stays searchable, and the marker and the items it comes with are one batch, so each change
 * is atomic. Several processes may write the same session: a transaction's operation id is a unique
 * ref in the store, so it is applied once however many writers retry it, and a removal that raced
 * another writer is void on replay (it never removes an item it did not see), then tried again or
 * refused. Operations on one instance run one after another.
 *
 * After a compaction (see `compaction.ts`) the conversation continues in a child Engram session:
 * `getSessionId()` stays the id the session started with, `currentSessionId()` is the one written to.
 */
export class EngramSession
  implements
    SessionHistoryTransactionAwareSession,
    SessionHistoryRewriteAwareSession,
    OpenAIResponsesCompactionAwareSession
{
  private readonly store: EngramSessionStore
  private readonly options: EngramSessionOptions
  private id: string | undefined = undefined
  private queue: Promise<unknown> = Promise.resolve()

  constructor(options: EngramSessionOptions) {
    this.store = options.store
    this.options = options
  }

  /** Runs `task` after every earlier operation of this instance has finished (failed ones included). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task)
    this.queue = run.catch(() => undefined)
    return run
  }

  private async ensureId(): Promise<string> {
    if (this.id !== undefined) return this.id
    const { store, options } = this
    const existing = options.sessionId === undefined ? null : await store.getSession(options.sessionId)
    const session =
      existing ??
      (await store.createSession({
        source: options.source ?? DEFAULT_SOURCE,
        ...(options.sessionId === undefined ? {} : { id: options.sessionId }),
        ...(options.userId === undefined ? {} : { userId: options.userId }),
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.title === undefined ? {} : { title: options.title }),
      }))
    this.id = session.id
    return session.id
  }

  /** The Engram session the history lives in now: the last child of compactions, read on every call. */
  private async tip(): Promise<string> {
    return this.store.resolveTip(await this.ensureId())
  }

  private async read(): Promise<{ tip: string; history: History }> {
    const tip = await this.tip()
    return { tip, history: readHistory(await this.store.getStoredMessages(tip)) }
  }

  /**
   * Writes a removal (a marker dropping items, with the items that replace them) made from the history
   * it returns, again on the new history while another writer got in first; `plan` returns null when
   * there is nothing to change. Returns what the applied plan returned.
   */
  private async removal<T>(
    plan: (history: History) => { drop: number[]; items: readonly RawItem[]; value: T } | null,
    fallback: T,
  ): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { tip, history } = await this.read()
      const change = plan(history)
      if (change === null) return fallback
      const batch = randomUUID()
      await this.store.appendMessages(tip, [
        markerMessage({ drop: change.drop, tail: history.entries.at(-1)?.messageId ?? null, batch }),
        ...change.items.map((item) => itemToMessage(item, batch)),
      ])
      if ((await this.read()).history.applied.has(batch)) return change.value
    }
    throw new EngramError(
      'DATABASE_BUSY',
      `Changing session ${JSON.stringify(this.id)}: other writers changed its history ${MAX_ATTEMPTS} times in a row while this change was written; nothing was changed. Try again, or give each writer its own session.`,
    )
  }

  getSessionId(): Promise<string> {
    return this.serial(() => this.ensureId())
  }

  /** The Engram session written to now: `getSessionId()`'s, or the child a compaction continued it in. */
  currentSessionId(): Promise<string> {
    return this.serial(() => this.tip())
  }

  /**
   * The history, or its last `limit` items in order. The window never starts between a `reasoning`
   * item and the item after it, nor between a call and its result: it starts later instead, so it
   * may hold fewer than `limit` items.
   */
  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.serial(async () => {
      const items = itemsOf((await this.read()).history)
      if (limit === undefined) return items as AgentInputItem[]
      if (limit <= 0) return []
      return items.slice(windowStart(items, limit)) as AgentInputItem[]
    })
  }

  addItems(items: AgentInputItem[]): Promise<void> {
    return this.serial(async () => {
      if (itemList(items, 'addItems: items').length === 0) return
      await this.store.appendMessages(
        await this.tip(),
        items.map((item) => itemToMessage(item as RawItem)),
      )
    })
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.serial(() =>
      this.removal<AgentInputItem | undefined>((history) => {
        const last = history.entries.at(-1)
        if (last === undefined) return null
        return { drop: [last.messageId], items: [], value: last.item as AgentInputItem }
      }, undefined),
    )
  }

  clearSession(): Promise<void> {
    return this.serial(async () => {
      await this.store.appendMessages(await this.tip(), [markerMessage({ drop: 'all' })])
    })
  }

  /**
   * Replaces the history with a compaction item and the items after it (the runner's path when the
   * model returns a `compaction` item), in one batch: without it the runner clears and re-adds, two
   * writes a kill could separate.
   */
  replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    return this.serial(() =>
      this.removal(
        (history) => ({
          drop: history.entries.map((entry) => entry.messageId),
          items: items as RawItem[],
          value: undefined,
        }),
        undefined,
      ),
    )
  }

  /**
   * Applies the runner's rewrites (`replace_function_call`: the first call with that `callId` becomes
   * the replacement, later ones with it are dropped) as one batch: a marker dropping the history from
   * the first changed item, then the rewritten tail.
   */
  applyHistoryMutations({ mutations }: SessionHistoryRewriteArgs): Promise<void> {
    return this.serial(() =>
      this.removal((history) => {
        const items = itemsOf(history)
        let next: RawItem[] = items
        for (const mutation of mutations) {
          if (mutation.type !== 'replace_function_call') continue
          let kept = false
          next = next.flatMap((item) => {
            if (item.type !== 'function_call' || item.callId !== mutation.callId) return [item]
            if (kept) return []
            kept = true
            return [mutation.replacement as RawItem]
          })
        }
        let same = 0
        while (same < items.length && same < next.length && items[same] === next[same]) same++
        if (same === items.length && same === next.length) return null
        const drop = history.entries.slice(same).map((entry) => entry.messageId)
        return { drop, items: next.slice(same), value: undefined }
      }, undefined),
    )
  }

  /**
   * Applies `append_items` or `replace_suffix` atomically: the operation id, its digest and the change
   * are one batch, written with refs derived from the operation id (a ref is unique in a session), so
   * two writers retrying the same transaction store it once. The same id with the same transaction
   * again succeeds and changes nothing; the same id with another transaction, or a suffix that no
   * longer matches (also when another writer changed it after this one read it), fails and changes
   * nothing.
   */
  applyHistoryTransaction({ operationId, transaction }: SessionHistoryTransactionArgs): Promise<void> {
    return this.serial(async () => {
      if (typeof operationId !== 'string' || operationId.trim() === '') {
        throw refused('applyHistoryTransaction needs a non-empty operationId; pass the id the runner gave.')
      }
      if (transaction === null || typeof transaction !== 'object')
        throw refused('applyHistoryTransaction needs a transaction object (append_items or replace_suffix).')
      if (transaction.type === 'append_items') itemList(transaction.items, 'append_items: items')
      else if (transaction.type === 'replace_suffix') {
        itemList(transaction.expectedSuffix, 'replace_suffix: expectedSuffix')
        itemList(transaction.replacement, 'replace_suffix: replacement')
      }
      const digest = digestOf(transaction)
      const reused = () =>
        refused(
          `Operation ${JSON.stringify(operationId)} was already applied with another transaction; nothing was changed. Use a new operation id for a new change.`,
        )
      const stale = () =>
        refused(
          `The history's last ${transaction.type === 'replace_suffix' ? transaction.expectedSuffix.length : 0} items no longer match the transaction's expected suffix; nothing was changed. Read the history again and retry with its current suffix.`,
        )
      const { tip, history } = await this.read()
      const applied = history.operations.get(operationId)
      if (applied === digest) return
      if (applied !== undefined) throw reused()
      let drop: number[] = []
      let added: readonly AgentInputItem[]
      if (transaction.type === 'append_items') added = transaction.items
      else if (transaction.type === 'replace_suffix') {
        const { expectedSuffix, replacement } = transaction
        const suffix = history.entries.slice(history.entries.length - expectedSuffix.length)
        if (
          expectedSuffix.length > history.entries.length ||
          canonicalJson(suffix.map((entry) => entry.item)) !== canonicalJson(expectedSuffix)
        )
          throw stale()
        drop = suffix.map((entry) => entry.messageId)
        added = replacement
      } else {
        throw refused(
          `Unknown history transaction type ${JSON.stringify((transaction as { type?: unknown }).type)}: use append_items or replace_suffix.`,
        )
      }
      // The session's clears count in the ref: after a clear the SDK may use an operation id again.
      const ref = `op:${history.clears}:${sha256(operationId)}`
      const batch = `${ref}:${digest}`
      const marker: Marker = {
        drop,
        ...(transaction.type === 'replace_suffix' ? { tail: history.entries.at(-1)?.messageId ?? null } : {}),
        batch,
        operation: { id: operationId, digest },
      }
      const messages: RefMessageInput[] = [
        { ...markerMessage(marker), ref },
        ...added.map((item, i) => ({ ...itemToMessage(item as RawItem, batch), ref: `${batch}:${i}` })),
      ]
      const { existing } = await this.store.appendMessagesOnce(tip, messages)
      // Written whole and nothing to remove: applied. Otherwise the replay says what happened.
      if (existing.length === 0 && drop.length === 0) return
      const now = (await this.read()).history.operations.get(operationId)
      if (now === digest) return
      throw now === undefined ? stale() : reused()
    })
  }

  /**
   * The SDK's compaction hook. When the compressor finds the history due (or `force` is set), the
   * compressed history continues in a child Engram session (`store.continueSession`, as the Engram
   * agent does): the parent ends with reason `compression` and keeps every item, archived and
   * searchable, and the summary is stored as its episode. The compacted items keep every call with its
   * result and every reasoning item with the item after it; the operation ids go along, so a retried
   * transaction is not applied twice. Skipped while the latest turn waits for a tool result (an
   * approval). Returns null: the summariser's usage is its own (the agent's `createSummarizer` reports
   * it to its observer).
   */
  runCompaction(args?: OpenAIResponsesCompactionArgs): Promise<null> {
    return this.serial(async () => {
      const { compressor, onCompaction } = this.options
      if (compressor === undefined) return null
      const { tip, history } = await this.read()
      if (history.entries.length === 0 || awaitingResult(itemsOf(history))) return null
      const sent: CompressibleMessage[] = toCompressible(history.entries)
      const result = await compressor.compress(sent, { force: args?.force === true })
      if (result === null || result.report.status !== 'compressed') return null
      const items = compactedItems(result.messages, history.entries, sent)
      const operations = operationList(history)
      const messages = [
        ...(operations.length > 0 ? [markerMessage({ operations })] : []),
        ...items.map((item) => itemToMessage(item)),
      ] as CompressibleMessage[]
      const { session } = await persistCompression(this.store, tip, { ...result, messages })
      onCompaction?.({ sessionId: tip, childSessionId: session.id, report: result.report })
      return null
    })
  }
}
