import type { ChatMessage, Role } from '@engram/core/types'
import { isSummaryMessage } from './summary.ts'
import type { TokenCounter } from './tokens.ts'

/** Where the conversation is cut: `[0, headEnd)` kept, `[headEnd, tailStart)` summarised, `[tailStart, n)` kept. */
export interface Boundaries {
  /** End of the protected prefix: the system prompt and, on a first compression, the head. */
  headEnd: number
  /** Start of the tail kept verbatim. */
  tailStart: number
  /** Start of the token-budgeted tail; older tool outputs are pruned. Never before `tailStart`. */
  pruneEnd: number
  /** Role of the summary message between head and tail; null when nothing is summarised. */
  summaryRole: 'user' | 'assistant' | null
  /** Index of the summary from an earlier pass, or -1. */
  previousSummaryIndex: number
}

export interface BoundaryOptions {
  headProtectMessages: number
  /** Most tokens of the protected head messages (after the system prompt); unbounded when absent. */
  headBudgetTokens?: number
  tailBudgetTokens: number
}

/**
 * Phase 2: chooses what to protect. The head is the system prompt plus the first `headProtectMessages`
 * messages (as many of them as fit `headBudgetTokens`) on the first compression (on later passes only the system prompt, unless the latest user message is
 * still in front of the previous summary, as in a long run on one request: then the old head stays too). The
 * tail is the newest messages within `tailBudgetTokens`. No cut separates a tool call from its results, the
 * latest user message is always in the tail or the head, the previous summary is always folded into the new
 * one, and the cuts are moved until the summary can take a role that repeats neither neighbour's.
 */
export function findBoundaries(
  messages: readonly ChatMessage[],
  counter: TokenCounter,
  options: BoundaryOptions,
): Boundaries {
  const systemEnd = messages[0]?.role === 'system' ? 1 : 0
  const previousSummaryIndex = findLastIndex(messages, systemEnd, isSummaryMessage)
  const lastUser = findLastIndex(messages, systemEnd, (m) => m.role === 'user' && !isSummaryMessage(m))

  let headEnd: number
  if (previousSummaryIndex < 0)
    headEnd = alignHeadEnd(messages, budgetedHeadEnd(messages, counter, options, systemEnd))
  else headEnd = lastUser >= 0 && lastUser < previousSummaryIndex ? previousSummaryIndex : systemEnd

  const pruneEnd = Math.max(headEnd, budgetedTailStart(messages, counter, options))
  let tailStart = lastUser >= headEnd ? Math.min(pruneEnd, lastUser) : pruneEnd
  // The tail must not keep the previous summary: it would then stand next to the new one.
  const lowest = previousSummaryIndex >= headEnd ? previousSummaryIndex + 1 : headEnd
  tailStart = Math.max(tailStart, lowest)

  const before = messages[headEnd - 1]?.role
  let summaryRole = null
  while (tailStart > headEnd) {
    summaryRole = roleBetween(before, messages[tailStart]?.role)
    if (summaryRole) break
    const earlier = alignTailStart(messages, tailStart - 1)
    tailStart = earlier >= lowest ? earlier : headEnd
  }
  return { headEnd, tailStart, pruneEnd: Math.max(pruneEnd, tailStart), summaryRole, previousSummaryIndex }
}

function findLastIndex(
  messages: readonly ChatMessage[],
  from: number,
  test: (m: ChatMessage) => boolean,
): number {
  for (let i = messages.length - 1; i >= from; i--) if (test(messages[i] as ChatMessage)) return i
  return -1
}

/** The end of the first `headProtectMessages` messages after `systemEnd`, fewer when they pass the head budget. */
function budgetedHeadEnd(
  messages: readonly ChatMessage[],
  counter: TokenCounter,
  options: BoundaryOptions,
  systemEnd: number,
): number {
  const last = Math.min(messages.length, systemEnd + options.headProtectMessages)
  const budget = options.headBudgetTokens ?? Number.POSITIVE_INFINITY
  let end = systemEnd
  let used = 0
  while (end < last) {
    used += counter.countMessage(messages[end] as ChatMessage)
    if (used > budget) break
    end++
  }
  return end
}

/** Extends the head over the results of its last tool calls, and over the reply to a head ending on a user turn. */
function alignHeadEnd(messages: readonly ChatMessage[], end: number): number {
  let aligned = skipToolResults(messages, end)
  if (messages[aligned - 1]?.role === 'user' && messages[aligned]?.role === 'assistant') {
    aligned = skipToolResults(messages, aligned + 1)
  }
  return aligned
}

function skipToolResults(messages: readonly ChatMessage[], index: number): number {
  let i = index
  while (messages[i]?.role === 'tool') i++
  return i
}

/** Moves a tail start off tool results, back to the assistant message that made the calls. */
function alignTailStart(messages: readonly ChatMessage[], start: number): number {
  let i = start
  while (i > 0 && messages[i]?.role === 'tool') i--
  return i
}

/**
 * How far past its budget the tail may grow to keep a tool call with the results the budget reached: with the
 * shares in budget.ts (head 1/4, summary 1/8, tail 1/2 of the trigger), head + summary + tail stay within it.
 */
const TAIL_OVERRUN = 1.25

/**
 * The oldest index whose suffix fits the budget, never on a tool result: the tail moves back to the call when
 * the whole group fits {@link TAIL_OVERRUN} times the budget (or ends the conversation), else forward past the
 * results, which are then summarised. The last message is always in the tail.
 */
function budgetedTailStart(
  messages: readonly ChatMessage[],
  counter: TokenCounter,
  options: BoundaryOptions,
): number {
  let start = messages.length - 1
  let used = start >= 0 ? counter.countMessage(messages[start] as ChatMessage) : 0
  while (start > 0) {
    const cost = counter.countMessage(messages[start - 1] as ChatMessage)
    if (used + cost > options.tailBudgetTokens) break
    used += cost
    start--
  }
  start = Math.max(0, start)
  const back = alignTailStart(messages, start)
  const forward = skipToolResults(messages, start)
  if (back === start || forward >= messages.length) return back
  for (let i = back; i < start; i++) used += counter.countMessage(messages[i] as ChatMessage)
  return used <= options.tailBudgetTokens * TAIL_OVERRUN ? back : forward
}

/**
 * A summary role that repeats neither neighbour: user where possible; assistant after a user or tool turn; null
 * when neither fits. Never assistant right after the system prompt, where Anthropic expects a user turn.
 */
function roleBetween(before: Role | undefined, after: Role | undefined): 'user' | 'assistant' | null {
  if (before !== 'user' && after !== 'user' && after !== 'tool') return 'user'
  if ((before === 'user' || before === 'tool') && after !== 'assistant' && after !== 'tool')
    return 'assistant'
  return null
}
