import { repairToolPairs } from '@engram/compressor'
import type { ChatMessage, Session, Store, StoredMessage } from '@engram/core'
import type { ToolResult } from '../tools/tool.ts'
import { normaliseHistory } from './answer.ts'
import { wire } from './wire.ts'

/** Provider-reported prompt tokens of the request that held the first `messages` history entries. */
export interface MeasuredPrompt {
  tokens: number
  messages: number
}

/**
 * One conversation as the loop sees it: the session at the tip of its compression chain, the system prompt
 * frozen for it, and its history as stored. Every message goes to the store the moment it is appended.
 */
export class Conversation {
  #session: Session
  #history: StoredMessage[]
  /** The last provider-measured prompt, reset when the history is replaced. */
  measured: MeasuredPrompt | null = null
  /** Messages appended since the last memory review (the nudge reads them). */
  sinceNudge = 0
  /** The results of the latest batch of tool calls, by call id, with their data (see ChatRequest.toolResults). */
  readonly toolResults = new Map<string, ToolResult>()

  constructor(
    private readonly store: Store,
    session: Session,
    readonly systemPrompt: string,
    history: StoredMessage[],
  ) {
    this.#session = session
    this.#history = history
  }

  get session(): Session {
    return this.#session
  }

  get history(): readonly StoredMessage[] {
    return this.#history
  }

  /** Appends a message; `retrieval` marks the agent's own retrieval traffic (see AgentTool.retrieval). */
  async append(message: ChatMessage, retrieval = false): Promise<StoredMessage> {
    const stored = await this.store.appendMessage(this.#session.id, {
      ...wire(message),
      ...(retrieval ? { retrieval } : {}),
    })
    this.#history.push(stored)
    this.sinceNudge++
    return stored
  }

  /**
   * The history as the provider gets it: wire shape, tool calls in a shape both vendors accept (rows
   * stored by older versions or other tools may not be), tool pairs repaired (a crash can leave a call
   * unanswered).
   */
  sendable(): ChatMessage[] {
    return repairToolPairs(normaliseHistory(this.#history.map(wire))).messages
  }

  /** The messages appended since the last review, in wire shape; starts the count again. */
  takeRecent(): ChatMessage[] {
    const recent = this.sinceNudge > 0 ? this.#history.slice(-this.sinceNudge).map(wire) : []
    this.sinceNudge = 0
    return recent
  }

  /** Moves to the child session a compression continued in, with its stored history. */
  async continueIn(child: Session): Promise<void> {
    this.#session = child
    this.#history = await this.store.getStoredMessages(child.id)
    this.measured = null
    this.sinceNudge = Math.min(this.sinceNudge, this.#history.length)
  }
}
