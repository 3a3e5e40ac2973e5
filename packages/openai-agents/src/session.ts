import { EngramError, type MessageInput, type Store } from '@engram/core'
import type {
  AgentInputItem,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents'
import { canonicalJson, digestOf } from './canonical.ts'
import { type History, readHistory, windowStart } from './history.ts'
import { itemToMessage, type Marker, markerMessage, type RawItem } from './items.ts'

/** The part of the Store the session uses. */
export type EngramSessionStore = Pick<
  Store,
  'getSession' | 'createSession' | 'appendMessages' | 'getMessages'
>

export interface EngramSessionOptions {
  store: EngramSessionStore
  /** An existing Engram session, or the id to create it with; a new UUID when omitted. */
  sessionId?: string
  /** Stored on a session this creates: `source` (default `openai-agents`), `userId`, `model`, `title`. */
  source?: string
  userId?: string
  model?: string
  title?: string
}

/** The session's source when none is given. */
export const DEFAULT_SOURCE = 'openai-agents'

const refused = (message: string) => new EngramError('INVALID_ARGUMENT', message)

/**
 * An Agents SDK `Session` kept in an Engram store. Every item is one Engram message, written the
 * moment the SDK hands it over and stored exactly as given (see items.ts), so a killed process loses
 * nothing already added and `store.search` finds what was said. Removals (`popItem`, `clearSession`,
 * `replace_suffix`) append a marker instead of deleting: the history stays searchable, and the marker
 * and the items it comes with are one `appendMessages` batch, so each change is atomic.
 *
 * Operations on one instance run one after another. Two processes changing the same session at the
 * same moment are not serialised against each other: give each writer its own session.
 */
export class EngramSession
  implements SessionHistoryTransactionAwareSession, SessionHistoryRewriteAwareSession
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

  private async history(): Promise<History> {
    return readHistory(await this.store.getMessages(await this.ensureId()))
  }

  private async append(messages: MessageInput[]): Promise<void> {
    if (messages.length > 0) await this.store.appendMessages(await this.ensureId(), messages)
  }

  getSessionId(): Promise<string> {
    return this.serial(() => this.ensureId())
  }

  /**
   * The history, or its last `limit` items in order. The window never starts between a `reasoning`
   * item and the item after it, nor between a call and its result: it starts later instead, so it
   * may hold fewer than `limit` items.
   */
  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.serial(async () => {
      const { items } = await this.history()
      if (limit === undefined) return items as AgentInputItem[]
      if (limit <= 0) return []
      return items.slice(windowStart(items, limit)) as AgentInputItem[]
    })
  }

  addItems(items: AgentInputItem[]): Promise<void> {
    return this.serial(() => this.append(items.map((item) => itemToMessage(item as RawItem))))
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.serial(async () => {
      const { items } = await this.history()
      const last = items.at(-1)
      if (last !== undefined) await this.append([markerMessage({ drop: 1 })])
      return last as AgentInputItem | undefined
    })
  }

  clearSession(): Promise<void> {
    return this.serial(() => this.append([markerMessage({ drop: 'all' })]))
  }

  /**
   * Applies the runner's rewrites (`replace_function_call`: the first call with that `callId` becomes
   * the replacement, later ones with it are dropped) as one batch: a marker dropping the history from
   * the first changed item, then the rewritten tail.
   */
  applyHistoryMutations({ mutations }: SessionHistoryRewriteArgs): Promise<void> {
    return this.serial(async () => {
      const { items } = await this.history()
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
      if (same === items.length && same === next.length) return
      const drop = items.length - same
      await this.append([
        ...(drop > 0 ? [markerMessage({ drop })] : []),
        ...next.slice(same).map((item) => itemToMessage(item)),
      ])
    })
  }

  /**
   * Applies `append_items` or `replace_suffix` atomically: the operation id, its digest and the change
   * are one batch. The same id with the same transaction again succeeds and changes nothing; the same
   * id with another transaction, or a suffix that no longer matches, fails and changes nothing.
   */
  applyHistoryTransaction({ operationId, transaction }: SessionHistoryTransactionArgs): Promise<void> {
    return this.serial(async () => {
      if (typeof operationId !== 'string' || operationId.trim() === '') {
        throw refused('applyHistoryTransaction needs a non-empty operationId; pass the id the runner gave.')
      }
      const digest = digestOf(transaction)
      const { items, operations } = await this.history()
      const applied = operations.get(operationId)
      if (applied === digest) return
      if (applied !== undefined) {
        throw refused(
          `Operation ${JSON.stringify(operationId)} was already applied with another transaction; nothing was changed. Use a new operation id for a new change.`,
        )
      }
      const operation = { id: operationId, digest }
      let marker: Marker
      let added: readonly AgentInputItem[]
      if (transaction.type === 'append_items') {
        marker = { operation }
        added = transaction.items
      } else if (transaction.type === 'replace_suffix') {
        const { expectedSuffix, replacement } = transaction
        const start = items.length - expectedSuffix.length
        if (start < 0 || canonicalJson(items.slice(start)) !== canonicalJson(expectedSuffix)) {
          throw refused(
            `The history's last ${expectedSuffix.length} items no longer match the transaction's expected suffix; nothing was changed. Read the history again and retry with its current suffix.`,
          )
        }
        marker = { drop: expectedSuffix.length, operation }
        added = replacement
      } else {
        throw refused(
          `Unknown history transaction type ${JSON.stringify((transaction as { type?: unknown }).type)}: use append_items or replace_suffix.`,
        )
      }
      await this.append([markerMessage(marker), ...added.map((item) => itemToMessage(item as RawItem))])
    })
  }
}
