import { describe, expect, it } from 'vitest'
import { configFromToml, DEFAULT_COMPRESSOR_CONFIG, resolveConfig, shouldCompress } from '../src/config.ts'

describe('configFromToml', () => {
  it('maps the articles’ [context_compressor] table to camelCase', () => {
    const config = configFromToml({
      trigger_ratio: 0.8,
      head_protect_messages: 2,
      tail_protect_tokens: 10_000,
      tool_output_char_limit: 300,
      compress_model: 'cheap-model',
      repair_tool_pairs: false,
      summary_max_tokens: 1_000,
    })
    expect(config).toEqual({
      triggerRatio: 0.8,
      headProtectMessages: 2,
      tailProtectTokens: 10_000,
      toolOutputCharLimit: 300,
      compressModel: 'cheap-model',
      repairToolPairs: false,
      summaryMaxTokens: 1_000,
      replyBudgetTokens: DEFAULT_COMPRESSOR_CONFIG.replyBudgetTokens,
    })
  })

  it('fills in the defaults for missing keys', () => {
    expect(configFromToml({})).toEqual(DEFAULT_COMPRESSOR_CONFIG)
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
    ['trigger_ratio', '0.75'],
    ['trigger_ratio', 1.5],
    ['head_protect_messages', 2.5],
    ['tail_protect_tokens', -1],
    ['tool_output_char_limit', 0],
    ['repair_tool_pairs', 'yes'],
    ['compress_model', ''],
    ['summary_max_tokens', null],
  ])('rejects %s = %j with an error naming the key', (key, value) => {
    expect(() => configFromToml({ [key]: value })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    )
    expect(() => configFromToml({ [key]: value })).toThrow(`context_compressor.${key}`)
  })

  it('rejects unknown keys, which are usually typos', () => {
    expect(() => configFromToml({ trigger_ration: 0.5 })).toThrow(
      /context_compressor\.trigger_ration is not a known key/,
    )
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
