import type { UsagePurpose, UsageRecord } from '@engram/core'
import type { ModelConfig } from '../config/types.ts'
import type { ChatResult } from '../providers/types.ts'

/**
 * USD for one call at `price` (per million tokens): uncached prompt tokens at the input price, cache reads at
 * the cache-read price (the input price when none is given), completion at the output price. Cache writes
 * are priced as input. Undefined when there is no price.
 */
export function costOf(usage: ChatResult['usage'], price: ModelConfig['price']): number | undefined {
  if (!price) return undefined
  const cacheRead = usage.cacheReadTokens ?? 0
  const uncached = Math.max(0, usage.inputTokens - cacheRead)
  return (
    (uncached * price.input +
      cacheRead * (price.cacheRead ?? price.input) +
      usage.outputTokens * price.output) /
    1e6
  )
}

/** The `model_calls` row of one finished call. */
export function usageRecord(
  model: string,
  purpose: UsagePurpose,
  result: ChatResult,
  latencyMs: number,
  price: ModelConfig['price'],
): UsageRecord {
  const { usage } = result
  const record: UsageRecord = {
    model,
    purpose,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    latencyMs,
  }
  if (usage.cacheReadTokens) record.cacheReadTokens = usage.cacheReadTokens
  if (usage.cacheWriteTokens) record.cacheWriteTokens = usage.cacheWriteTokens
  const cost = costOf(usage, price)
  if (cost !== undefined) record.costUsd = cost
  return record
}
