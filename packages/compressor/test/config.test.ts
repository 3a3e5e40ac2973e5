import { describe, expect, it } from 'vitest'
import { shouldCompress } from '../src/budget.ts'
import { DEFAULT_COMPRESSOR_CONFIG, resolveConfig } from '../src/config.ts'

describe('defaults', () => {
  it('fills in the defaults for missing keys', () => {
    expect(resolveConfig({})).toEqual(DEFAULT_COMPRESSOR_CONFIG)
    expect(DEFAULT_COMPRESSOR_CONFIG).toMatchObject({
      triggerRatio: 0.75,
      headProtectMessages: 3,
      tailProtectTokens: 20_000,
      toolOutputCharLimit: 200,
      summaryMaxTokens: 1_500,
      repairToolPairs: true,
    })
  })

  it.each([
    ['triggerRatio', '0.75'],
    ['triggerRatio', 1.5],
    ['headProtectMessages', 2.5],
    ['tailProtectTokens', -1],
    ['toolOutputCharLimit', 0],
    ['repairToolPairs', 'yes'],
    ['summaryMaxTokens', null],
  ])('rejects %s = %j with an error naming the key', (key, value) => {
    expect(() => resolveConfig({ [key]: value })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }))
    expect(() => resolveConfig({ [key]: value })).toThrow(key)
  })
})

describe('resolveConfig', () => {
  it('validates programmatic overrides too, naming the camelCase key', () => {
    expect(resolveConfig({ headProtectMessages: 0 }).headProtectMessages).toBe(0)
    expect(() => resolveConfig({ triggerRatio: 0 })).toThrow(/^triggerRatio must be/)
  })
})

describe('shouldCompress', () => {
  it('triggers at trigger_ratio of the window minus the reply budget', () => {
    const config = { triggerRatio: 0.75, replyBudgetTokens: 4_000 }
    expect(shouldCompress(74_999, 104_000, config)).toBe(false)
    expect(shouldCompress(75_000, 104_000, config)).toBe(true)
  })

  it('uses the defaults when no config is given', () => {
    const threshold = (128_000 - 4_096) * 0.75
    expect(shouldCompress(threshold - 1, 128_000)).toBe(false)
    expect(shouldCompress(threshold, 128_000)).toBe(true)
  })
})
