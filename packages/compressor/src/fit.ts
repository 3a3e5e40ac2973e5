import { type ChatMessage, EngramError } from '@engram/core/types'
import { type WindowBudget, windowBudget } from './budget.ts'
import { type CompressorConfig, resolveConfig } from './config.ts'
import { buildFallbackSummary } from './fallback.ts'
import { type CompressibleMessage, textOf } from './messages.ts'
import { type PruneStats, pruneToolOutputs } from './prune.ts'
import { repairToolPairs } from './repair.ts'
import { type CompressionReport, type CompressionResult, unchangedReport } from './report.ts'
import { isSummaryMessage, summaryBody, summaryMessage } from './summary.ts'
import { bpeTokenCounter, clipToTokens, countMessages, type TokenCounter } from './tokens.ts'

export interface FitOptions {
  /** The model's context window in tokens. */
  window: number
  /** Overrides of the default configuration; `replyBudgetTokens` and the summary bound are read. */
  config?: Partial<CompressorConfig>
  /** Defaults to {@link bpeTokenCounter}. */
  tokenCounter?: TokenCounter
  /** Tokens each request carries besides the messages (the tool specs), counted against the window. */
  fixedTokens?: number
  /**
   * The provider-reported tokens of the whole request (messages and fixed part). When the provider counts
   * more than the local counter, the limit shrinks by the same ratio, so its count fits too.
   */
  measuredTokens?: number
}

/** A summary smaller than this is not worth its framing: the cut is then reported, not summarised. */
const MIN_SUMMARY_TOKENS = 24
/** Tokens a summary message may take beyond its body and framing: BPE merges at the seam between them. */
const SUMMARY_SLACK_TOKENS = 4
/** Characters of a clipped output looked at per token allowed (a token is rarely longer): keeps clipping linear. */
const CHARS_PER_TOKEN_BOUND = 16

const CLIP_NOTE = '\n[clipped to fit the context window; the whole output is kept in the session store]'

function cutIntro(count: number, window: number): string {
  return (
    `${count} earlier message(s) were cut to fit the ${window}-token context window, without a model. ` +
    'They are kept in the session store: session_search finds them. What they held, as a list of facts:'
  )
}

/** Messages `[start, end)` of the conversation: one message, with the tool results answering its calls. */
interface Unit {
  start: number
  end: number
}

function unitsOf(messages: readonly ChatMessage[], from: number): Unit[] {
  const units: Unit[] = []
  for (let i = from; i < messages.length; i++) {
    const last = units.at(-1)
    if (messages[i]?.role === 'tool' && last) last.end = i + 1
    else units.push({ start: i, end: i + 1 })
  }
  return units
}

/** Which messages a fitting attempt keeps. */
interface Plan {
  /** Cut the older steps of the current turn too (after every turn before it). */
  cutSteps: boolean
  /** Fold what is cut into a summary message. */
  summary: boolean
  /** Keep the latest step (the newest tool call and its results). */
  keepLast: boolean
}

/** A conversation prepared for fitting: the input repaired, its units, and where the latest user turn is. */
class Layout {
  readonly systemEnd: number
  readonly units: Unit[]
  /** Unit index of the latest user message; -1 when there is none. */
  readonly userUnit: number
  readonly lastUnit: number

  constructor(readonly input: readonly CompressibleMessage[]) {
    this.systemEnd = input[0]?.role === 'system' ? 1 : 0
    this.units = unitsOf(input, this.systemEnd)
    this.lastUnit = this.units.length - 1
    this.userUnit = this.units.findLastIndex((u) => {
      const message = input[u.start] as ChatMessage
      return message.role === 'user' && !isSummaryMessage(message)
    })
  }

  /** Index of the first message after the latest user message, or of the latest step when there is no user turn. */
  get currentTurnStart(): number {
    return this.userUnit >= 0
      ? (this.units[this.userUnit] as Unit).start
      : (this.units[this.lastUnit]?.start ?? this.input.length)
  }

  get latestStepStart(): number {
    return this.units[this.lastUnit]?.start ?? this.input.length
  }
}

interface Attempt {
  messages: CompressibleMessage[]
  summary: string | null
  cut: CompressibleMessage[]
  tokens: number
}

class Fitter {
  readonly #counter: TokenCounter
  readonly #limit: number
  readonly #budget: WindowBudget
  readonly #window: number
  readonly #priming: number

  constructor(
    readonly layout: Layout,
    counter: TokenCounter,
    limit: number,
    budget: WindowBudget,
    window: number,
  ) {
    this.#counter = counter
    this.#limit = limit
    this.#budget = budget
    this.#window = window
    this.#priming = countMessages(counter, [])
  }

  /**
   * Keeps the system prompt, the latest user message and (per `plan`) the latest step; then, newest first
   * and while they fit, the older steps of the current turn and then the turns before it. Everything else is
   * cut, as whole units, and folded into one summary right after the system prompt (a previous summary
   * is folded into it too). Null when the result would still not fit.
   */
  plan(working: readonly CompressibleMessage[], plan: Plan): Attempt | null {
    const { units, userUnit, lastUnit, systemEnd, input } = this.layout
    const counter = this.#counter
    const cost = units.map((u) => {
      let sum = 0
      for (let i = u.start; i < u.end; i++) sum += counter.countMessage(working[i] as ChatMessage)
      return sum
    })
    const required = new Set<number>()
    if (userUnit >= 0) required.add(userUnit)
    if (plan.keepLast && lastUnit >= 0) required.add(lastUnit)
    const base = this.#priming + (systemEnd ? counter.countMessage(working[0] as ChatMessage) : 0)
    let used = base
    for (const k of required) used += cost[k] as number
    if (used > this.#limit) return null
    if (base + cost.reduce((a, b) => a + b, 0) <= this.#limit) {
      return { messages: [...working], summary: null, cut: [], tokens: countMessages(counter, working) }
    }

    const framing = counter.countMessage(summaryMessage('', 'user')) + SUMMARY_SLACK_TOKENS
    const summaryTokens = plan.summary
      ? Math.min(this.#budget.summaryTokens, this.#limit - used - framing)
      : 0
    const withSummary = summaryTokens >= MIN_SUMMARY_TOKENS
    let room = this.#limit - used - (withSummary ? framing + summaryTokens : 0)

    const kept = new Set(required)
    const keepNewestFirst = (from: number, to: number): boolean => {
      for (let k = to - 1; k >= from; k--) {
        if (kept.has(k)) continue
        if ((cost[k] as number) > room) return false
        room -= cost[k] as number
        kept.add(k)
      }
      return true
    }
    const steps = userUnit + 1
    const stepsEnd = plan.keepLast ? lastUnit : lastUnit + 1
    const allSteps = keepNewestFirst(steps, stepsEnd)
    if (!allSteps && !plan.cutSteps) return null
    if (allSteps) keepNewestFirst(0, Math.max(0, userUnit))
    // At most one summary in the context: a cut folds the previous one into the new one.
    for (const k of kept) {
      const message = input[(units[k] as Unit).start] as ChatMessage
      if (!required.has(k) && isSummaryMessage(message)) kept.delete(k)
    }

    const cut: CompressibleMessage[] = []
    const keptMessages: CompressibleMessage[] = []
    units.forEach((unit, k) => {
      const target = kept.has(k) ? keptMessages : cut
      const source = kept.has(k) ? working : input
      for (let i = unit.start; i < unit.end; i++) target.push(source[i] as CompressibleMessage)
    })
    let summary: string | null = null
    const head = working.slice(0, systemEnd) as CompressibleMessage[]
    if (withSummary && cut.length > 0) {
      const previous = cut.find(isSummaryMessage)
      summary = buildFallbackSummary(
        cut.filter((m) => !isSummaryMessage(m)),
        previous ? summaryBody(previous) : null,
        summaryTokens,
        counter,
        cutIntro(cut.length, this.#window),
      )
      head.push(summaryMessage(summary, 'user'))
    }
    const messages = [...head, ...keptMessages]
    const tokens = countMessages(counter, messages)
    return tokens <= this.#limit ? { messages, summary, cut, tokens } : null
  }

  /** The latest step with each tool output clipped to an equal share of what the window leaves for it. */
  clipLatestStep(working: readonly CompressibleMessage[]): {
    messages: CompressibleMessage[]
    clipped: number
  } {
    const { units, userUnit, lastUnit, systemEnd } = this.layout
    const last = units[lastUnit]
    if (!last || lastUnit === userUnit) return { messages: [...working], clipped: 0 }
    const counter = this.#counter
    let fixed = this.#priming + counter.countMessage(working[last.start] as ChatMessage)
    if (systemEnd) fixed += counter.countMessage(working[0] as ChatMessage)
    if (userUnit >= 0) fixed += counter.countMessage(working[(units[userUnit] as Unit).start] as ChatMessage)
    const results = last.end - last.start - 1
    const perResult =
      Math.floor((this.#limit - fixed) / Math.max(1, results)) -
      counter.countMessage({ role: 'tool', tool_call_id: 'x', content: CLIP_NOTE })
    if (perResult < MIN_SUMMARY_TOKENS) return { messages: [...working], clipped: 0 }
    let clipped = 0
    const messages = working.map((message, i) => {
      if (i <= last.start || i >= last.end) return message
      const text = textOf(message)
      if (counter.countMessage(message) <= perResult) return message
      clipped++
      const head = clipToTokens(counter, text.slice(0, perResult * CHARS_PER_TOKEN_BOUND), perResult)
      return { ...message, content: `${head}${CLIP_NOTE}` } as CompressibleMessage
    })
    return { messages, clipped }
  }
}

function tooLarge(
  layout: Layout,
  counter: TokenCounter,
  limit: number,
  window: number,
  fixed: number,
): EngramError {
  const { input, systemEnd, units, userUnit } = layout
  const alone = [
    ...input.slice(0, systemEnd),
    ...(userUnit >= 0 ? [input[(units[userUnit] as Unit).start] as ChatMessage] : []),
  ]
  const tokens = countMessages(counter, alone) + fixed
  return new EngramError(
    'CONTEXT_TOO_LARGE',
    `Nothing was sent to the model: the system prompt, tool definitions and latest user message alone take ` +
      `${tokens.toLocaleString('en-US')} tokens, and the ${window.toLocaleString('en-US')}-token context window leaves ` +
      `${(limit + fixed).toLocaleString('en-US')} for the prompt after the reply budget. Send a shorter message ` +
      '(split it, or save the text to a file and refer to it), or use a model with a larger context window ' +
      '(models.main.context_window).',
  )
}

function idRange(messages: readonly CompressibleMessage[]): { first: number; last: number } | null {
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const { id } of messages) {
    if (typeof id !== 'number') continue
    first = Math.min(first, id)
    last = Math.max(last, id)
  }
  return Number.isFinite(first) ? { first, last } : null
}

/**
 * The hard limit, without a model: returns `messages` unchanged when their prompt fits the window with its
 * reply budget; otherwise the least-cut conversation that fits, trying in order: old tool outputs (before the
 * latest user message) become placeholders; the oldest turns are cut; the current turn's older tool outputs
 * become placeholders and its oldest steps are cut; the latest step's outputs are clipped; then placeholders
 * everywhere, the summary and finally the latest step itself are given up. Cut messages are folded into a
 * local summary (named there, and kept in the store by the caller); tool calls keep their results.
 * Linear in the conversation: a fixed number of passes, each counting every message once.
 *
 * @throws EngramError `CONTEXT_TOO_LARGE` when the system prompt and the latest user message alone do not fit:
 *   nothing may be sent then.
 */
export function fitToWindow(
  messages: readonly CompressibleMessage[],
  options: FitOptions,
): CompressionResult {
  const config = resolveConfig(options.config)
  const counter = options.tokenCounter ?? bpeTokenCounter
  const budget = windowBudget(options.window, config)
  const fixed = options.fixedTokens ?? 0
  const input = repairToolPairs(messages).messages as CompressibleMessage[]
  const counted = countMessages(counter, input)
  const measured = options.measuredTokens
  const scale = measured === undefined ? 1 : Math.max(1, measured / Math.max(1, counted + fixed))
  const limit = Math.floor(budget.promptTokens / scale) - fixed
  const tokensBefore = measured ?? counted + fixed
  const report = unchangedReport(tokensBefore, messages.length, !messages.some(isSummaryMessage))
  if (counted <= limit) return { messages: [...messages], summary: null, report }

  const layout = new Layout(input)
  const fitter = new Fitter(layout, counter, limit, budget, options.window)
  const charLimit = config.toolOutputCharLimit
  const beforeTurn = pruneToolOutputs(input, layout.currentTurnStart, charLimit)
  const beforeStep = pruneToolOutputs(input, layout.latestStepStart, charLimit)
  const everywhere = pruneToolOutputs(input, input.length, charLimit)
  const clipped = fitter.clipLatestStep(beforeStep.messages)
  const full: Plan = { cutSteps: true, summary: true, keepLast: true }
  const attempts: [{ messages: CompressibleMessage[]; stats?: PruneStats; clipped?: number }, Plan][] = [
    [beforeTurn, { ...full, cutSteps: false }],
    [beforeStep, { ...full, cutSteps: false }],
    [beforeStep, full],
    [clipped, full],
    [everywhere, full],
    [everywhere, { ...full, summary: false }],
    [everywhere, { ...full, keepLast: false }],
    [everywhere, { ...full, summary: false, keepLast: false }],
  ]
  for (const [working, plan] of attempts) {
    const attempt = fitter.plan(working.messages, plan)
    if (!attempt) continue
    Object.assign(report, {
      status: 'compressed',
      tokensAfter: Math.round((attempt.tokens + fixed) * scale),
      messagesAfter: attempt.messages.length,
      messagesDropped: attempt.cut.length,
      messagesSummarized: attempt.summary === null ? 0 : attempt.cut.length,
      summaryTokens: attempt.summary === null ? 0 : counter.countText(attempt.summary),
      summarizedIdRange: idRange(attempt.cut),
      prune: working.stats ?? beforeStep.stats,
      windowCut: {
        limitTokens: limit,
        messagesCut: attempt.cut.length,
        toolOutputsClipped: working.clipped ?? 0,
      },
    } satisfies Partial<CompressionReport>)
    return { messages: attempt.messages, summary: attempt.summary, report }
  }
  throw tooLarge(layout, counter, limit, options.window, fixed)
}
