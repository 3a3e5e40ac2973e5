import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  bpeTokenCounter,
  clipToTokens,
  countMessages,
  createTokenCounter,
  estimateTokenCounter,
} from '../src/tokens.ts'
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

  it('counts text in proportion to the budget, not to the text: a 2 MB tool result costs what a 200 KB one does', () => {
    const counted = (text: string, maxTokens: number) => {
      let characters = 0
      const counter = createTokenCounter((piece) => {
        characters += piece.length
        return bpeTokenCounter.countText(piece)
      })
      const clipped = clipToTokens(counter, text, maxTokens)
      expect(bpeTokenCounter.countText(clipped)).toBeLessThanOrEqual(maxTokens)
      return { characters, clipped }
    }
    const line = 'kraken trace line 0042: retrying the deploy after a timeout\n'
    const small = counted(line.repeat(3_500), 1_000)
    const large = counted(line.repeat(35_000), 1_000)
    expect(large.clipped).toBe(small.clipped)
    expect(large.characters).toBe(small.characters)
    // Against the whole text counted once and then bisected: at least twice its 2 MB.
    expect(large.characters).toBeLessThan(200_000)
  })

  it('finds the longest prefix within the budget, as a bisection over the whole text would', () => {
    const piece = fc.constantFrom('a', 'word ', ' ', '\n', '上下文', '😀', 'é', '\t')
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 200 }), fc.integer({ min: 0, max: 60 }), (pieces, max) => {
        const text = pieces.join('')
        const count = (t: string) => estimateTokenCounter.countText(t)
        let expected = text
        if (count(text) > max) {
          let end = 0
          while (end < text.length && count(`${text.slice(0, end + 1)}…`) <= max) end++
          if (end > 0 && /[\ud800-\udbff]/.test(text[end - 1] ?? '')) end--
          expected = `${text.slice(0, end)}…`
        }
        expect(clipToTokens(estimateTokenCounter, text, max)).toBe(expected)
      }),
    )
  })
})
