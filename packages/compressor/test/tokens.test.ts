import { describe, expect, it } from 'vitest'
import { bpeTokenCounter, clipToTokens, countMessages, estimateTokenCounter } from '../src/tokens.ts'
import { call, callsTo, user } from './helpers.ts'

describe('bpeTokenCounter', () => {
  it('counts with the o200k BPE, not characters', () => {
    expect(bpeTokenCounter.countText('hello world')).toBe(2)
    expect(bpeTokenCounter.countText('a'.repeat(400))).toBeLessThan(100)
  })

  it('treats special-token text as ordinary text instead of throwing', () => {
    expect(bpeTokenCounter.countText('a <|endoftext|> b')).toBeGreaterThan(3)
  })

  it('counts role framing, tool call names and arguments', () => {
    const bare = bpeTokenCounter.countMessage({ role: 'assistant', content: null })
    const withCall = bpeTokenCounter.countMessage(callsTo(call('1', 'read_file', { path: 'src/index.ts' })))
    const longArgs = bpeTokenCounter.countMessage(
      callsTo(call('1', 'write_file', { content: 'x y '.repeat(500) })),
    )
    expect(bare).toBeGreaterThan(0)
    expect(withCall).toBeGreaterThan(bare + 8)
    expect(longArgs).toBeGreaterThan(1_000)
  })

  it('counts image parts by detail and text parts by content', () => {
    const image = (detail: 'low' | 'high') =>
      bpeTokenCounter.countMessage({
        role: 'user',
        content: [
          { type: 'text', text: 'what is this' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail } },
        ],
      })
    expect(image('high') - image('low')).toBe(765 - 85)
    expect(image('low')).toBeGreaterThan(85)
  })

  it('adds reply priming once per request', () => {
    const one = countMessages(bpeTokenCounter, [user('hi')])
    expect(countMessages(bpeTokenCounter, [user('hi'), user('hi')])).toBe(2 * one - 3)
  })
})

describe('estimateTokenCounter', () => {
  it('is close to the BPE on English and counts CJK per character', () => {
    const text =
      'The compressor keeps the head and the tail of a conversation and summarises the middle. '.repeat(20)
    const ratio = estimateTokenCounter.countText(text) / bpeTokenCounter.countText(text)
    expect(ratio).toBeGreaterThan(0.8)
    expect(ratio).toBeLessThan(1.6)
    expect(estimateTokenCounter.countText('上下文压缩')).toBe(5)
  })
})

describe('clipToTokens', () => {
  it('returns short text unchanged and clips long text within the budget', () => {
    expect(clipToTokens(bpeTokenCounter, 'short', 10)).toBe('short')
    const clipped = clipToTokens(bpeTokenCounter, 'word '.repeat(1_000), 50)
    expect(bpeTokenCounter.countText(clipped)).toBeLessThanOrEqual(50)
    expect(bpeTokenCounter.countText(clipped)).toBeGreaterThan(40)
    expect(clipped.endsWith('…')).toBe(true)
  })

  it('never cuts a surrogate pair in half', () => {
    const clipped = clipToTokens(estimateTokenCounter, '😀'.repeat(100), 11)
    expect(clipped).toMatch(/^(😀)*…$/u)
  })
})
