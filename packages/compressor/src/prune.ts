import type { ToolCall } from '@engram/core/types'
import { type CompressibleMessage, describeCall, indexToolCalls, textOf } from './messages.ts'

/** What the pruning phase changed. */
export interface PruneStats {
  /** Tool outputs replaced by a placeholder. */
  prunedToolOutputs: number
  /** Tool outputs replaced by a note pointing at a later identical output. */
  deduplicatedToolOutputs: number
  /** Tool calls whose argument strings were shortened. */
  shortenedToolArguments: number
}

/**
 * Phase 1, no LLM: in `messages[0, end)`, tool outputs longer than `charLimit` become a one-line placeholder
 * naming the tool, its key argument and the original size; one that recurs identically later becomes a
 * duplicate note instead; string values longer than `charLimit` inside tool-call arguments are shortened while
 * the arguments stay valid JSON. Messages from `end` on, and everything not changed, are returned as they are.
 */
export function pruneToolOutputs(
  messages: readonly CompressibleMessage[],
  end: number,
  charLimit: number,
): { messages: CompressibleMessage[]; stats: PruneStats } {
  const stats: PruneStats = { prunedToolOutputs: 0, deduplicatedToolOutputs: 0, shortenedToolArguments: 0 }
  const calls = indexToolCalls(messages)
  const lastIndexOfOutput = new Map<string, number>()
  messages.forEach((message, index) => {
    if (message.role === 'tool') lastIndexOfOutput.set(textOf(message), index)
  })

  const result = messages.map((message, index) => {
    if (index >= end) return message
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const shortened = message.tool_calls.map((call) => shortenArguments(call, charLimit))
      if (shortened.every((call, i) => call === message.tool_calls?.[i])) return message
      stats.shortenedToolArguments += shortened.filter((call, i) => call !== message.tool_calls?.[i]).length
      return { ...message, tool_calls: shortened }
    }
    if (message.role !== 'tool') return message
    const output = textOf(message)
    if (output.length <= charLimit || isPlaceholder(output)) return message
    const call = describeCall(calls.get(message.tool_call_id ?? ''))
    const size = `${output.length} chars, ${output.split('\n').length} lines`
    if ((lastIndexOfOutput.get(output) ?? index) > index) {
      stats.deduplicatedToolOutputs++
      return { ...message, content: `${DUPLICATE_PREFIX}${call} output, ${size}]` }
    }
    stats.prunedToolOutputs++
    return { ...message, content: `${PRUNED_PREFIX}${call} returned ${size}]` }
  })
  return { messages: result, stats }
}

const PRUNED_PREFIX = '[tool output pruned: '
const DUPLICATE_PREFIX = '[duplicate of a later result: '

/** A placeholder from an earlier pass is not measured again: its size would be reported instead of the output's. */
function isPlaceholder(output: string): boolean {
  return output.startsWith(PRUNED_PREFIX) || output.startsWith(DUPLICATE_PREFIX)
}

/** The call unchanged when nothing is too long, else a copy whose arguments still parse. */
function shortenArguments(call: ToolCall, charLimit: number): ToolCall {
  const raw = call.function.arguments
  if (raw.length <= charLimit) return call
  let shortened: string
  try {
    shortened = JSON.stringify(shortenStrings(JSON.parse(raw), charLimit))
  } catch {
    // Not JSON to begin with: wrap a cut-down copy so what the model sees is at least valid.
    shortened = JSON.stringify({ _unparsed_arguments: shortenString(raw, charLimit) })
  }
  if (shortened === raw) return call
  return { ...call, function: { ...call.function, arguments: shortened } }
}

function shortenString(value: string, charLimit: number): string {
  if (value.length <= charLimit) return value
  return `${value.slice(0, charLimit)}…[${value.length - charLimit} more chars pruned]`
}

function shortenStrings(value: unknown, charLimit: number): unknown {
  if (typeof value === 'string') return shortenString(value, charLimit)
  if (Array.isArray(value)) return value.map((item) => shortenStrings(item, charLimit))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenStrings(v, charLimit)]))
  }
  return value
}
