export { type Boundaries, type BoundaryOptions, findBoundaries } from './boundaries.ts'
export { shouldCompress, triggerThreshold, type WindowBudget, windowBudget } from './budget.ts'
export { type CompressOptions, compress } from './compress.ts'
export {
  type CompressorConfig,
  DEFAULT_COMPRESSOR_CONFIG,
  resolveConfig,
} from './config.ts'
export { buildFallbackSummary } from './fallback.ts'
export { type FitOptions, fitToWindow } from './fit.ts'
export {
  type CompressCallOptions,
  CompressionGuard,
  ContextCompressor,
  type ContextCompressorOptions,
  MAX_FAILED_COMPRESSIONS_IN_A_ROW,
} from './guard.ts'
export { type CompressibleMessage, textOf } from './messages.ts'
export { COMPRESSION_END_REASON, type CompressionStore, persistCompression } from './persist.ts'
export { type PruneStats, pruneToolOutputs } from './prune.ts'
export { REDACTED, redactSecrets } from './redact.ts'
export { MISSING_RESULT_STUB, type RepairStats, repairToolPairs } from './repair.ts'
export type { CompressionReport, CompressionResult, CompressionStatus, WindowCut } from './report.ts'
export {
  isAuthOrNetworkError,
  type SummarizeOptions,
  type Summarizer,
  SummarizerAbort,
  type SummaryRequest,
} from './summarizer.ts'
export {
  buildSummaryRequest,
  detectLanguage,
  isSummaryMessage,
  SUMMARY_MARKER,
  SUMMARY_SECTIONS,
  summaryBody,
} from './summary.ts'
export {
  bpeTokenCounter,
  clipToTokens,
  countMessages,
  createTokenCounter,
  estimateTokenCounter,
  type TokenCounter,
} from './tokens.ts'
