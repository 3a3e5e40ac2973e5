import { type CompressionReport, type CompressionResult, type CompressOptions, compress } from './compress.ts'
import { type CompressorConfig, resolveConfig, shouldCompress, triggerThreshold } from './config.ts'
import type { CompressibleMessage } from './messages.ts'
import { bpeTokenCounter, countMessages, type TokenCounter } from './tokens.ts'

/** Consecutive ineffective or fallback compressions after which auto-compression stops. */
export const MAX_FAILED_COMPRESSIONS_IN_A_ROW = 2

/**
 * Stops compression loops: after two ineffective compressions in a row (nothing removed, or still at the
 * trigger afterwards) or two fallback summaries in a row, auto-compression is blocked until a forced one.
 * Aborted compressions are not counted: the conversation is unchanged and the next call will tell.
 */
export class CompressionGuard {
  #ineffective = 0
  #fallbacks = 0

  /** Whether automatic compression is currently blocked. */
  get blocked(): boolean {
    return (
      this.#ineffective >= MAX_FAILED_COMPRESSIONS_IN_A_ROW ||
      this.#fallbacks >= MAX_FAILED_COMPRESSIONS_IN_A_ROW
    )
  }

  /** Records a compression; `threshold` is the trigger token count it should have brought the prompt under. */
  record(report: CompressionReport, threshold: number): void {
    if (report.status === 'aborted') return
    const ineffective = report.status === 'unchanged' || report.tokensAfter >= threshold
    this.#ineffective = ineffective ? this.#ineffective + 1 : 0
    this.#fallbacks = report.usedFallback ? this.#fallbacks + 1 : 0
  }

  /** Clears the streaks, as a forced compression does. */
  reset(): void {
    this.#ineffective = 0
    this.#fallbacks = 0
  }
}

/** Everything {@link compress} needs except the per-call measured token count. */
export type ContextCompressorOptions = Omit<CompressOptions, 'measuredTokens' | 'signal'>

export interface CompressCallOptions {
  /** Compress even when not due or blocked; also lifts the block. */
  force?: boolean
  /** Provider-reported prompt tokens for the messages (see {@link CompressOptions.measuredTokens}). */
  measuredTokens?: number
  /** Cancels the summariser call (see {@link CompressOptions.signal}). */
  signal?: AbortSignal
}

/** Holds the configuration and the loop guard for one conversation; the stateful front of {@link compress}. */
export class ContextCompressor {
  readonly config: CompressorConfig
  readonly guard = new CompressionGuard()
  readonly #options: ContextCompressorOptions
  readonly #counter: TokenCounter

  constructor(options: ContextCompressorOptions) {
    this.config = resolveConfig(options.config)
    this.#options = options
    this.#counter = options.tokenCounter ?? bpeTokenCounter
  }

  /** Whether a prompt of `tokens` should be compressed now: due, and not blocked by the guard. */
  shouldCompress(tokens: number): boolean {
    return !this.guard.blocked && shouldCompress(tokens, this.#options.window, this.config)
  }

  /**
   * Compresses when due (or when forced) and records the outcome; returns null when it did not run because
   * the prompt is under the trigger or the guard blocks automatic compression.
   */
  async compress(
    messages: readonly CompressibleMessage[],
    options: CompressCallOptions = {},
  ): Promise<CompressionResult | null> {
    if (options.force) this.guard.reset()
    else {
      const tokens = options.measuredTokens ?? countMessages(this.#counter, messages)
      if (!this.shouldCompress(tokens)) return null
    }
    const result = await compress(messages, {
      ...this.#options,
      config: this.config,
      tokenCounter: this.#counter,
      ...(options.measuredTokens === undefined ? {} : { measuredTokens: options.measuredTokens }),
      ...(options.signal ? { signal: options.signal } : {}),
    })
    this.guard.record(result.report, triggerThreshold(this.#options.window, this.config))
    return result
  }
}
