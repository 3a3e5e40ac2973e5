import { type CompressorConfig, DEFAULT_COMPRESSOR_CONFIG } from './config.ts'

/** Share of the window the reply budget may take at most, so a small window keeps room for a prompt. */
const MAX_REPLY_SHARE = 1 / 4
/** Shares of the trigger count the protected tail, head and summary may take at most: together under it. */
const TAIL_SHARE = 1 / 2
const HEAD_SHARE = 1 / 4
const SUMMARY_SHARE = 1 / 8

/**
 * The token budgets of one context window: every limit the compressor applies, derived in one place. The
 * configured values are upper bounds; a small window scales them down so that a compression can get under
 * the trigger and a prompt always fits: head + summary + tail stay within the trigger count.
 */
export interface WindowBudget {
  /** Tokens kept free for the reply: `replyBudgetTokens`, at most a quarter of the window. */
  replyTokens: number
  /** The hard limit: no prompt (messages, system prompt and tool specs) may exceed `window - replyTokens`. */
  promptTokens: number
  /** Compression is due from this many prompt tokens (`triggerRatio` of `promptTokens`). */
  triggerTokens: number
  /** Most tokens of the messages protected after the system prompt on a first compression. */
  headTokens: number
  /** Token budget of the recent tail kept verbatim: `tailProtectTokens`, at most half the trigger count. */
  tailTokens: number
  /** Upper bound of a summary: `summaryMaxTokens`, at most an eighth of the trigger count (it is rewritten on every pass). */
  summaryTokens: number
}

/** The settings the budgets depend on; tail and summary bounds default to the Hermes values. */
type BudgetConfig = Pick<CompressorConfig, 'triggerRatio' | 'replyBudgetTokens'> &
  Partial<Pick<CompressorConfig, 'tailProtectTokens' | 'summaryMaxTokens'>>

/** The budgets of `window` under `config` (see {@link WindowBudget}). */
export function windowBudget(window: number, config: BudgetConfig): WindowBudget {
  const size = Math.max(0, Math.floor(window))
  const replyTokens = Math.min(config.replyBudgetTokens, Math.floor(size * MAX_REPLY_SHARE))
  const promptTokens = size - replyTokens
  const triggerTokens = promptTokens * config.triggerRatio
  return {
    replyTokens,
    promptTokens,
    triggerTokens,
    headTokens: Math.floor(triggerTokens * HEAD_SHARE),
    tailTokens: Math.min(
      config.tailProtectTokens ?? DEFAULT_COMPRESSOR_CONFIG.tailProtectTokens,
      Math.floor(triggerTokens * TAIL_SHARE),
    ),
    summaryTokens: Math.max(
      1,
      Math.min(
        config.summaryMaxTokens ?? DEFAULT_COMPRESSOR_CONFIG.summaryMaxTokens,
        Math.floor(triggerTokens * SUMMARY_SHARE),
      ),
    ),
  }
}

/** The token count at which compression triggers for `window`. */
export function triggerThreshold(window: number, config: BudgetConfig): number {
  return windowBudget(window, config).triggerTokens
}

/** Whether a prompt of `tokens` has reached the trigger share of the usable window. */
export function shouldCompress(
  tokens: number,
  window: number,
  config: BudgetConfig = DEFAULT_COMPRESSOR_CONFIG,
): boolean {
  return tokens >= triggerThreshold(window, config)
}
