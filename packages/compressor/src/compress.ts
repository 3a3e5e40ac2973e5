import { findBoundaries } from './boundaries.ts'
import { windowBudget } from './budget.ts'
import { type CompressorConfig, resolveConfig } from './config.ts'
import { buildFallbackSummary } from './fallback.ts'
import type { CompressibleMessage } from './messages.ts'
import { pruneToolOutputs } from './prune.ts'
import { redactSecrets } from './redact.ts'
import { repairToolPairs } from './repair.ts'
import { type CompressionResult, unchangedReport } from './report.ts'
import { isAuthOrNetworkError, type Summarizer, SummarizerAbort } from './summarizer.ts'
import { buildSummaryRequest, isSummaryMessage, summaryBody, summaryMessage } from './summary.ts'
import { bpeTokenCounter, clipToTokens, countMessages, type TokenCounter } from './tokens.ts'

export interface CompressOptions {
  /** The model's context window in tokens. */
  window: number
  summarizer: Summarizer
  /** Overrides of {@link DEFAULT_COMPRESSOR_CONFIG}. */
  config?: Partial<CompressorConfig>
  /** Defaults to {@link bpeTokenCounter}. */
  tokenCounter?: TokenCounter
  /**
   * The provider-reported prompt tokens of `messages` (`usage.prompt_tokens`), used instead of the local count;
   * `tokensAfter` is then scaled by the same measured/counted ratio.
   */
  measuredTokens?: number
  /** Cancels the summariser call; a cancelled compression is `aborted` and changes nothing. */
  signal?: AbortSignal
}

type SummaryOutcome = { text: string; usedFallback: boolean; reason: string | null } | { abort: string }

async function summarise(
  turns: readonly CompressibleMessage[],
  previousSummary: string | null,
  maxTokens: number,
  counter: TokenCounter,
  summarizer: Summarizer,
  signal: AbortSignal | undefined,
): Promise<SummaryOutcome> {
  let reason: string
  try {
    const request = buildSummaryRequest(turns, previousSummary, maxTokens)
    const answer = await summarizer.summarize(request, signal ? { signal } : {})
    const text = typeof answer === 'string' ? answer.trim() : ''
    if (text)
      return {
        text: clipToTokens(counter, redactSecrets(text), maxTokens),
        usedFallback: false,
        reason: null,
      }
    reason = 'the summariser returned an empty summary'
  } catch (error) {
    if (signal?.aborted) return { abort: `cancelled: ${describe(error)}` }
    if (error instanceof SummarizerAbort || isAuthOrNetworkError(error))
      return { abort: `summariser unreachable or unauthorised: ${describe(error)}` }
    reason = `the summariser failed: ${describe(error)}`
  }
  const text = buildFallbackSummary(turns, previousSummary, maxTokens, counter)
  return { text, usedFallback: true, reason }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

function idRange(messages: readonly CompressibleMessage[]): { first: number; last: number } | null {
  const ids = messages.map((m) => m.id).filter((id): id is number => typeof id === 'number')
  return ids.length > 0 ? { first: Math.min(...ids), last: Math.max(...ids) } : null
}

/**
 * Compresses a conversation: prunes old tool output, keeps the head and a token-budgeted tail, replaces the
 * middle with a (new or updated) summary, and repairs tool pairs. Pure apart from the summariser call: the
 * input is never mutated, and messages kept unchanged are returned as the same objects.
 *
 * Always compresses when asked; use {@link shouldCompress} or {@link ContextCompressor} to decide when.
 */
export async function compress(
  messages: readonly CompressibleMessage[],
  options: CompressOptions,
): Promise<CompressionResult> {
  const config = resolveConfig(options.config)
  const counter = options.tokenCounter ?? bpeTokenCounter
  const countedBefore = countMessages(counter, messages)
  const tokensBefore = options.measuredTokens ?? countedBefore
  // Head, tail and summary scaled to the window: together they stay under the trigger.
  const budget = windowBudget(options.window, config)
  const bounds = findBoundaries(messages, counter, {
    headProtectMessages: config.headProtectMessages,
    headBudgetTokens: budget.headTokens,
    tailBudgetTokens: budget.tailTokens,
  })
  const middle = messages.slice(bounds.headEnd, bounds.tailStart)
  const turns = middle.filter((m) => !isSummaryMessage(m))
  const report = unchangedReport(tokensBefore, messages.length, bounds.previousSummaryIndex < 0)
  const unchanged = (): CompressionResult => ({ messages: [...messages], summary: null, report })

  let assembled: readonly CompressibleMessage[] = messages
  let pruneEnd = bounds.pruneEnd
  let summary: string | null = null
  if (bounds.summaryRole && turns.length > 0) {
    const previous = middle.find(isSummaryMessage)
    const outcome = await summarise(
      turns,
      previous ? summaryBody(previous) : null,
      budget.summaryTokens,
      counter,
      options.summarizer,
      options.signal,
    )
    if ('abort' in outcome) {
      report.status = 'aborted'
      report.reason = outcome.abort
      return unchanged()
    }
    summary = outcome.text
    const head = messages.slice(0, bounds.headEnd)
    assembled = [...head, summaryMessage(summary, bounds.summaryRole), ...messages.slice(bounds.tailStart)]
    pruneEnd += head.length + 1 - bounds.tailStart
    Object.assign(report, {
      messagesSummarized: middle.length,
      summaryTokens: counter.countText(summary),
      usedFallback: outcome.usedFallback,
      reason: outcome.reason,
      summarizedIdRange: idRange(middle),
    })
  }

  // Pruned after the cut, so a duplicate note never points at a result that was summarised away.
  const pruned = pruneToolOutputs(assembled, pruneEnd, config.toolOutputCharLimit)
  report.prune = pruned.stats
  const kept = pruned.messages
  const repaired = config.repairToolPairs
    ? repairToolPairs(kept)
    : { messages: kept, stats: { droppedToolResults: 0, stubbedToolCalls: 0 } }
  const countedAfter = countMessages(counter, repaired.messages)
  if (countedAfter >= countedBefore) {
    // Nothing was saved, so nothing is cut or summarised; but broken tool pairs are still repaired (a
    // provider refuses a call without its result): the input itself, with the repair in the report.
    if (!config.repairToolPairs) return unchanged()
    const whole = repairToolPairs(messages)
    if (whole.stats.droppedToolResults === 0 && whole.stats.stubbedToolCalls === 0) return unchanged()
    report.repair = whole.stats
    report.messagesAfter = whole.messages.length
    report.messagesDropped = whole.stats.droppedToolResults
    return { messages: whole.messages, summary: null, report }
  }

  Object.assign(report, {
    status: 'compressed',
    tokensAfter: Math.round((countedAfter * tokensBefore) / Math.max(1, countedBefore)),
    messagesAfter: repaired.messages.length,
    messagesDropped: report.messagesSummarized + repaired.stats.droppedToolResults,
    repair: repaired.stats,
  })
  return { messages: repaired.messages, summary, report }
}
