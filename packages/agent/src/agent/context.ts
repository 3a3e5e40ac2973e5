import {
  type CompressionReport,
  type ContextCompressor,
  countMessages,
  persistCompression,
  shouldCompress,
  type TokenCounter,
} from '@engram/compressor'
import type { ChatMessage, Store } from '@engram/core'
import type { ToolSpec } from '../providers/types.ts'
import type { Conversation } from './conversation.ts'
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
  /** The tools offered with every request: their definitions count against the window. */
  tools: readonly ToolSpec[]
  log: (line: string) => void
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
    const tools = counter.countText(
      JSON.stringify(
        this.options.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
      ),
    )
    return countMessages(counter, [system, ...conversation.sendable()]) + tools
  }

  /** Compresses when due (or `force`d); a compressed conversation continues in the child session. */
  async check(conversation: Conversation, force: boolean): Promise<ContextCheck> {
    const { compressor, window, store, log } = this.options
    const tokens = this.tokens(conversation)
    const measured = (compressed: boolean): ContextReport => ({
      tokens,
      window,
      ratio: tokens / window,
      compressed,
    })
    const line = (compressed: boolean, note = '') =>
      log(
        `[ctx] tokens=${tokens} window=${window} ratio=${(tokens / window).toFixed(2)} compressed=${compressed ? 'yes' : 'no'}${note}`,
      )
    if (!force && !shouldCompress(tokens, window, compressor.config)) {
      return { context: measured(false), report: null }
    }
    const system: ChatMessage = { role: 'system', content: conversation.systemPrompt }
    const result = await compressor.compress([system, ...conversation.history], {
      force,
      measuredTokens: tokens,
    })
    if (!result) {
      line(false, ' (blocked: the last compressions did not help)')
      return { context: measured(false), report: null }
    }
    if (result.report.status !== 'compressed') {
      line(false, ` (${result.report.status}${result.report.reason ? `: ${result.report.reason}` : ''})`)
      return { context: measured(false), report: result.report }
    }
    const messages = result.messages[0] === system ? result.messages.slice(1) : result.messages
    const importance = result.summary === null ? undefined : importanceOf(result.summary)
    const { session: child } = await persistCompression(
      store,
      conversation.session.id,
      { ...result, messages },
      importance === undefined ? {} : { importance },
    )
    await conversation.continueIn(child)
    line(true, ` tokens_after=${result.report.tokensAfter} session=${child.id}`)
    const after = result.report.tokensAfter
    return {
      context: { tokens: after, window, ratio: after / window, compressed: true },
      report: result.report,
    }
  }
}
