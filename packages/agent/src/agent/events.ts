import type { CompressionReport, CompressionStatus } from '@engram/compressor'
import type { ToolCall, UsageRecord } from '@engram/core'
import type { ToolResult } from '../tools/tool.ts'

/**
 * What the agent reports through `onEvent`, in the order it happens. Every event names the session it
 * belongs to (for `compression`, the session that was compressed). None carries a secret: tool results
 * and compression reasons are redacted before they exist.
 */
export type AgentEvent =
  /** The prompt was measured before a model call; `due` when it passed the trigger (or compression was forced). */
  | {
      type: 'context'
      sessionId: string
      tokens: number
      window: number
      ratio: number
      due: boolean
    }
  /**
   * A compression ran (or was due but `blocked` by the loop guard). `compressed`: the conversation continues
   * in `childSessionId` at `tokensAfter`; otherwise the history is unchanged and `reason` says why.
   */
  | {
      type: 'compression'
      sessionId: string
      tokens: number
      window: number
      ratio: number
      status: CompressionStatus | 'blocked'
      reason: string | null
      tokensAfter: number
      childSessionId: string | null
      report: CompressionReport | null
    }
  /** A tool call the model asked for is about to run (after its shape was normalised). */
  | { type: 'tool-started'; sessionId: string; call: ToolCall }
  /** The tool call finished; `result` is what the model is sent (see `toolResultText`). */
  | { type: 'tool-finished'; sessionId: string; call: ToolCall; result: ToolResult }
  /** A model call finished and its usage row was recorded (`record.purpose`: main, compression, nudge, or scan for the optional second opinion). */
  | { type: 'usage'; sessionId: string; record: UsageRecord }
  /** The memory review ran (`skipped` null) or failed and was skipped (`skipped`: why). */
  | {
      type: 'nudge'
      sessionId: string
      reviewed: number
      writes: number
      consolidate: boolean
      skipped: string | null
    }

/** Receives every {@link AgentEvent}; called synchronously, so it should return quickly. */
export type AgentEventHandler = (event: AgentEvent) => void

const ratioText = (event: { tokens: number; window: number; ratio: number }) =>
  `[ctx] tokens=${event.tokens} window=${event.window} ratio=${event.ratio.toFixed(2)}`

function compressionNote(event: Extract<AgentEvent, { type: 'compression' }>): string {
  if (event.status === 'compressed')
    return ` tokens_after=${event.tokensAfter}${event.report?.windowCut ? ` cut_to_fit=${event.report.windowCut.messagesCut}` : ''} session=${event.childSessionId}`
  if (event.status === 'blocked') return ' (blocked: the last compressions did not help)'
  return ` (${event.status}${event.reason ? `: ${event.reason}` : ''})`
}

/**
 * The log line of an event, or null for events that have none: `[ctx] tokens=… window=… ratio=…
 * compressed=yes|no …` for each compression (a context check under the trigger prints nothing), `[nudge]
 * reviewed N messages, W memory write(s)` or `[nudge] skipped: …` for each review.
 */
export function renderAgentEvent(event: AgentEvent): string | null {
  switch (event.type) {
    case 'compression':
      return `${ratioText(event)} compressed=${event.status === 'compressed' ? 'yes' : 'no'}${compressionNote(event)}`
    case 'nudge':
      if (event.skipped !== null) return `[nudge] skipped: ${event.skipped}`
      return `[nudge] reviewed ${event.reviewed} messages, ${event.writes} memory write(s)${event.consolidate ? ', consolidation asked' : ''}`
    default:
      return null
  }
}
