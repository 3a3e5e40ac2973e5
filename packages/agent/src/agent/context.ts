import {
  type CompressionReport,
  type ContextCompressor,
  countMessages,
  persistCompression,
  shouldCompress,
  type TokenCounter,
} from '@engram/compressor'
import type { ChatMessage, Store } from '@engram/core'
import type { Conversation } from './conversation.ts'
import type { AgentEvent, AgentEventHandler } from './events.ts'
import { importanceOf } from './importance.ts'

/** The context check before the latest model call. */
export interface ContextReport {
  tokens: number
  window: number
  ratio: number
  compressed: boolean
}

export interface ContextKeeperOptions {
  store: Store
  compressor: ContextCompressor
  counter: TokenCounter
  window: number
  /** Tokens of the tool definitions offered with every request: they count against the window. */
  toolTokens: number
  emit: AgentEventHandler
}

/** The outcome of one check: what was measured, and the compression's report when one ran. */
export interface ContextCheck {
  context: ContextReport
  report: CompressionReport | null
}

/**
 * Measures the prompt a conversation would send and compresses it into a child session when due: the
 * provider's last measurement plus the messages since, else a local count of the prompt and the tools.
 */
export class ContextKeeper {
  constructor(private readonly options: ContextKeeperOptions) {}

  tokens(conversation: Conversation): number {
    const { counter } = this.options
    const { measured, history } = conversation
    if (measured && measured.messages <= history.length) {
      const added = history.slice(measured.messages)
      return measured.tokens + added.reduce((sum, m) => sum + counter.countMessage(m), 0)
    }
    const system: ChatMessage = { role: 'system', content: conversation.systemPrompt }
    return countMessages(counter, [system, ...conversation.sendable()]) + this.options.toolTokens
  }

  /**
   * Compresses when due (or `force`d); a compressed conversation continues in the child session. `signal`
   * cancels the summariser call (the compression then aborts and changes nothing).
   */
  async check(conversation: Conversation, force: boolean, signal?: AbortSignal): Promise<ContextCheck> {
    const { compressor, window, store, emit } = this.options
    const sessionId = conversation.session.id
    const tokens = this.tokens(conversation)
    const measured = { sessionId, tokens, window, ratio: tokens / window }
    const unchanged: ContextReport = { tokens, window, ratio: tokens / window, compressed: false }
    const due = force || shouldCompress(tokens, window, compressor.config)
    emit({ type: 'context', ...measured, due })
    if (!due) return { context: unchanged, report: null }
    const outcome = (
      status: Extract<AgentEvent, { type: 'compression' }>['status'],
      report: CompressionReport | null,
      childSessionId: string | null = null,
    ) =>
      emit({
        type: 'compression',
        ...measured,
        status,
        reason: report?.reason ?? null,
        tokensAfter: report?.tokensAfter ?? tokens,
        childSessionId,
        report,
      })
    const system: ChatMessage = { role: 'system', content: conversation.systemPrompt }
    const result = await compressor.compress([system, ...conversation.history], {
      force,
      measuredTokens: tokens,
      ...(signal ? { signal } : {}),
    })
    if (!result) {
      outcome('blocked', null)
      return { context: unchanged, report: null }
    }
    if (result.report.status !== 'compressed') {
      outcome(result.report.status, result.report)
      return { context: unchanged, report: result.report }
    }
    const messages = result.messages[0] === system ? result.messages.slice(1) : result.messages
    const importance = result.summary === null ? undefined : importanceOf(result.summary)
    const { session: child } = await persistCompression(
      store,
      sessionId,
      { ...result, messages },
      importance === undefined ? {} : { importance },
    )
    await conversation.continueIn(child)
    outcome('compressed', result.report, child.id)
    // Measured again, tools included: what the next request will really carry.
    const after = this.tokens(conversation)
    return {
      context: { tokens: after, window, ratio: after / window, compressed: true },
      report: result.report,
    }
  }
}
