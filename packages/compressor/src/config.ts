import { EngramError } from '@engram/core/types'
/** Settings of the compression pipeline; camelCase forms of the Hermes `[context_compressor]` keys. */
export interface CompressorConfig {
  /** Compress when the prompt reaches this share of the usable window. */
  triggerRatio: number
  /** Messages after the system prompt kept verbatim on the first compression of a conversation. */
  headProtectMessages: number
  /** Token budget of the recent tail kept verbatim. */
  tailProtectTokens: number
  /** Older tool outputs longer than this many characters become one-line placeholders. */
  toolOutputCharLimit: number
  /** Upper bound for the summary, passed to the summariser and enforced on its answer. */
  summaryMaxTokens: number
  /** Drop orphaned tool results and give unanswered tool calls a stub result. */
  repairToolPairs: boolean
  /** Tokens reserved for the model's reply: the usable window is `window - replyBudgetTokens`. */
  replyBudgetTokens: number
}

export const DEFAULT_COMPRESSOR_CONFIG: Readonly<CompressorConfig> = Object.freeze({
  triggerRatio: 0.75,
  headProtectMessages: 3,
  tailProtectTokens: 20_000,
  toolOutputCharLimit: 200,
  summaryMaxTokens: 1_500,
  repairToolPairs: true,
  replyBudgetTokens: 4_096,
})

type Check = (value: unknown) => string | null

const ratio: Check = (v) =>
  typeof v === 'number' && v > 0 && v <= 1 ? null : 'must be a number greater than 0 and at most 1'
const count: Check = (v) =>
  Number.isInteger(v) && (v as number) >= 0 ? null : 'must be a non-negative integer'
const positive: Check = (v) =>
  Number.isInteger(v) && (v as number) > 0 ? null : 'must be a positive integer'
const boolean: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false')

const FIELDS: Record<keyof CompressorConfig, Check> = {
  triggerRatio: ratio,
  headProtectMessages: count,
  tailProtectTokens: count,
  toolOutputCharLimit: positive,
  summaryMaxTokens: positive,
  repairToolPairs: boolean,
  replyBudgetTokens: count,
}

const FIELD_NAMES = Object.keys(FIELDS) as (keyof CompressorConfig)[]

function fail(key: string, problem: string, value: unknown): never {
  throw new EngramError('INVALID_CONFIG', `${key} ${problem} (got ${JSON.stringify(value) ?? String(value)})`)
}

/** Fills in defaults and validates; errors name the camelCase key. */
export function resolveConfig(overrides: Partial<CompressorConfig> = {}): CompressorConfig {
  const config = { ...DEFAULT_COMPRESSOR_CONFIG }
  for (const field of FIELD_NAMES) {
    const value = overrides[field]
    if (value === undefined) continue
    const problem = FIELDS[field](value)
    if (problem) fail(field, problem, value)
    Object.assign(config, { [field]: value })
  }
  return config
}
