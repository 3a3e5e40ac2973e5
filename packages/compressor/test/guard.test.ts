import { describe, expect, it } from 'vitest'
import { CompressionGuard, ContextCompressor } from '../src/guard.ts'
import type { CompressionReport } from '../src/report.ts'
import { codingConversation, errorWith, scriptedSummarizer } from './helpers.ts'

const report = (overrides: Partial<CompressionReport>): CompressionReport => ({
  status: 'compressed',
  tokensBefore: 1_000,
  tokensAfter: 100,
  messagesBefore: 10,
  messagesAfter: 5,
  messagesDropped: 5,
  messagesSummarized: 5,
  summaryTokens: 20,
  usedFallback: false,
  reason: null,
  summarizedIdRange: null,
  firstCompression: true,
  prune: { prunedToolOutputs: 0, deduplicatedToolOutputs: 0, shortenedToolArguments: 0 },
  repair: { droppedToolResults: 0, stubbedToolCalls: 0 },
  windowCut: null,
  ...overrides,
})

describe('CompressionGuard', () => {
  it('blocks after two ineffective compressions in a row', () => {
    const guard = new CompressionGuard()
    guard.record(report({ tokensAfter: 900 }), 500)
    expect(guard.blocked).toBe(false)
    guard.record(report({ status: 'unchanged' }), 500)
    expect(guard.blocked).toBe(true)
    guard.reset()
    expect(guard.blocked).toBe(false)
  })

  it('blocks after two fallback summaries in a row', () => {
    const guard = new CompressionGuard()
    guard.record(report({ usedFallback: true }), 500)
    guard.record(report({ usedFallback: true }), 500)
    expect(guard.blocked).toBe(true)
  })

  it('counts only streaks, and ignores aborted compressions', () => {
    const guard = new CompressionGuard()
    guard.record(report({ usedFallback: true }), 500)
    guard.record(report({ status: 'aborted' }), 500)
    guard.record(report({}), 500)
    guard.record(report({ usedFallback: true }), 500)
    guard.record(report({ tokensAfter: 600 }), 500)
    expect(guard.blocked).toBe(false)
  })
})

describe('ContextCompressor', () => {
  const conversation = codingConversation(30)
  // About 14K tokens against a trigger of (20000 - 4096) × 0.75 ≈ 11.9K.
  const window = 20_000
  const config = { tailProtectTokens: 3_000 }

  it('compresses only when due', async () => {
    const summarizer = scriptedSummarizer('s')
    const compressor = new ContextCompressor({ window: 1_000_000, summarizer, config })
    expect(await compressor.compress(conversation)).toBeNull()
    expect(summarizer.requests).toHaveLength(0)
    const due = new ContextCompressor({ window, summarizer, config })
    expect((await due.compress(conversation))?.report.status).toBe('compressed')
  })

  it('trusts a measured token count over its own', async () => {
    const compressor = new ContextCompressor({ window, summarizer: scriptedSummarizer('s'), config })
    expect(await compressor.compress(conversation, { measuredTokens: 10 })).toBeNull()
    expect(compressor.shouldCompress(30_000)).toBe(true)
  })

  it('stops auto-compressing after two fallback compressions until forced', async () => {
    const summarizer = scriptedSummarizer(new Error('bad gateway'))
    const compressor = new ContextCompressor({ window, summarizer, config })
    expect((await compressor.compress(conversation))?.report.usedFallback).toBe(true)
    expect((await compressor.compress(conversation))?.report.usedFallback).toBe(true)
    expect(compressor.guard.blocked).toBe(true)
    expect(compressor.shouldCompress(1_000_000)).toBe(false)
    expect(await compressor.compress(conversation)).toBeNull()
    expect(summarizer.requests).toHaveLength(2)
    const forced = await compressor.compress(conversation, { force: true })
    expect(forced?.report.status).toBe('compressed')
    expect(summarizer.requests).toHaveLength(3)
  })

  it('keeps trying after an abort, which leaves the conversation as it was', async () => {
    const compressor = new ContextCompressor({
      window,
      summarizer: scriptedSummarizer(errorWith({ status: 401 })),
      config,
    })
    for (let i = 0; i < 3; i++)
      expect((await compressor.compress(conversation))?.report.status).toBe('aborted')
    expect(compressor.guard.blocked).toBe(false)
  })
})
