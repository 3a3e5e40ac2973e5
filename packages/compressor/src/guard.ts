import { shouldCompress, triggerThreshold } from './budget.ts'
import { type CompressOptions, compress } from './compress.ts'
import { type CompressorConfig, resolveConfig } from './config.ts'
import { fitToWindow } from './fit.ts'
import type { CompressibleMessage } from './messages.ts'
import type { CompressionReport, CompressionResult } from './report.ts'
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
export type ContextCompressorOptions = Omit<CompressOptions, 'measuredTokens' | 'signal'> & {
  /** Tokens each request carries besides the messages (the tool specs): counted against the window. */
  fixedTokens?: number
}

export interface CompressCallOptions {
  /** Compress even when not due or blocked; also lifts the block. */
  force?: boolean
  /** Provider-reported prompt tokens of the whole request: the messages and the fixed part. */
  measuredTokens?: number
  /** Cancels the summariser call (see {@link CompressOptions.signal}). */
  signal?: AbortSignal
}

/**
 * Holds the configuration and the loop guard for one conversation; the stateful front of {@link compress}
 * and {@link fitToWindow}. The guard only stops *summarising*: whatever it says, a result is cut to the
 * window when it is still over it.
 */
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
   * Compresses when due (or when forced) and records the outcome, then cuts the result (or, when the
   * summariser was blocked, failed or did not help, the input) to the window with {@link fitToWindow}.
   * Returns null when the prompt is under the trigger, or when the guard blocks summarising and the prompt
   * fits the window. Throws `CONTEXT_TOO_LARGE` when even the latest user message cannot fit.
   */
  async compress(
    messages: readonly CompressibleMessage[],
    options: CompressCallOptions = {},
  ): Promise<CompressionResult | null> {
    const { window, fixedTokens = 0 } = this.#options
    const counted = countMessages(this.#counter, messages)
    const tokens = options.measuredTokens ?? counted + fixedTokens
    if (options.force) this.guard.reset()
    else if (!shouldCompress(tokens, window, this.config)) return null
    let result: CompressionResult | null = null
    if (!this.guard.blocked) {
      result = await compress(messages, {
        ...this.#options,
        config: this.config,
        tokenCounter: this.#counter,
        ...(options.measuredTokens === undefined ? {} : { measuredTokens: options.measuredTokens }),
        ...(options.signal ? { signal: options.signal } : {}),
      })
      this.guard.record(result.report, triggerThreshold(window, this.config))
    }
    const compressed = result?.report.status === 'compressed' ? result : null
    // The provider's count of the compressed messages, by the ratio it showed on the input.
    const scale = tokens / Math.max(1, counted + fixedTokens)
    const current = compressed?.messages ?? messages
    const fitted = fitToWindow(current, {
      window,
      config: this.config,
      tokenCounter: this.#counter,
      fixedTokens,
      measuredTokens: compressed
        ? Math.ceil((countMessages(this.#counter, current) + fixedTokens) * scale)
        : tokens,
    })
    if (fitted.report.status !== 'compressed') return result
    return compressed
      ? chain(compressed, fitted)
      : { ...fitted, report: { ...fitted.report, reason: result?.report.reason ?? null } }
  }
}

/** One report for a summarising compression followed by a cut to the window, as one step from the input. */
function chain(first: CompressionResult, second: CompressionResult): CompressionResult {
  const a = first.report
  const b = second.report
  const ranges = [a.summarizedIdRange, b.summarizedIdRange].filter((r) => r !== null)
  return {
    messages: second.messages,
    summary: second.summary ?? first.summary,
    report: {
      ...b,
      tokensBefore: a.tokensBefore,
      messagesBefore: a.messagesBefore,
      messagesDropped: a.messagesDropped + b.messagesDropped,
      messagesSummarized: a.messagesSummarized + b.messagesSummarized,
      summaryTokens: second.summary === null ? a.summaryTokens : b.summaryTokens,
      usedFallback: a.usedFallback,
      reason: a.reason,
      firstCompression: a.firstCompression,
      summarizedIdRange:
        ranges.length > 0
          ? { first: Math.min(...ranges.map((r) => r.first)), last: Math.max(...ranges.map((r) => r.last)) }
          : null,
      prune: {
        prunedToolOutputs: a.prune.prunedToolOutputs + b.prune.prunedToolOutputs,
        deduplicatedToolOutputs: a.prune.deduplicatedToolOutputs + b.prune.deduplicatedToolOutputs,
        shortenedToolArguments: a.prune.shortenedToolArguments + b.prune.shortenedToolArguments,
      },
      repair: {
        droppedToolResults: a.repair.droppedToolResults + b.repair.droppedToolResults,
        stubbedToolCalls: a.repair.stubbedToolCalls + b.repair.stubbedToolCalls,
      },
    },
  }
}
