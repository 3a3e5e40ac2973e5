import type { CompressibleMessage } from './messages.ts'
import type { PruneStats } from './prune.ts'
import type { RepairStats } from './repair.ts'

// What a compression or a fit to the window reports: shared by compress.ts and fit.ts, imported by both.

/**
 * `compressed`: the messages changed and got smaller. `unchanged`: nothing could be removed (or the result
 * would not have been smaller), the input is returned. `aborted`: an auth or network error from the
 * summariser, the input is returned.
 */
export type CompressionStatus = 'compressed' | 'unchanged' | 'aborted'

export interface CompressionReport {
  status: CompressionStatus
  tokensBefore: number
  tokensAfter: number
  messagesBefore: number
  messagesAfter: number
  /** Input messages absent from the output: summarised ones and dropped orphan tool results. */
  messagesDropped: number
  /** Input messages folded into the summary. */
  messagesSummarized: number
  /** Tokens of the summary text; 0 when nothing was summarised. */
  summaryTokens: number
  /** The summary was built locally because the summariser failed or answered nothing. */
  usedFallback: boolean
  /** Why the fallback was used, or why the compression aborted; null otherwise. */
  reason: string | null
  /** Smallest and largest store `id` among the summarised messages, when they carry ids. */
  summarizedIdRange: { first: number; last: number } | null
  /** The head was protected, i.e. there was no earlier summary. */
  firstCompression: boolean
  prune: PruneStats
  repair: RepairStats
  /** What fitting the result to the window cut (see `fitToWindow`); null when it fitted as it was. */
  windowCut: WindowCut | null
}

export interface CompressionResult {
  messages: CompressibleMessage[]
  /** The new summary text (without the marker), or null when nothing was summarised. */
  summary: string | null
  report: CompressionReport
}

/** What fitting a conversation to its window did; null on reports of a summarising compression alone. */
export interface WindowCut {
  /** The limit the messages were fitted to, in tokens of the local counter (window − reply − fixed part). */
  limitTokens: number
  /** Messages taken out of the context (they stay in the store); named in the summary when one fits. */
  messagesCut: number
  /** Tool outputs of the latest step clipped to their share of the window. */
  toolOutputsClipped: number
}

/** The report of a pass that changed nothing yet: the starting point every pass fills in. */
export function unchangedReport(
  tokensBefore: number,
  messages: number,
  firstCompression: boolean,
): CompressionReport {
  return {
    status: 'unchanged',
    tokensBefore,
    tokensAfter: tokensBefore,
    messagesBefore: messages,
    messagesAfter: messages,
    messagesDropped: 0,
    messagesSummarized: 0,
    summaryTokens: 0,
    usedFallback: false,
    reason: null,
    summarizedIdRange: null,
    firstCompression,
    prune: { prunedToolOutputs: 0, deduplicatedToolOutputs: 0, shortenedToolArguments: 0 },
    repair: { droppedToolResults: 0, stubbedToolCalls: 0 },
    windowCut: null,
  }
}
