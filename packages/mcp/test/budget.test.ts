import { createTokenCounter } from '@engram/compressor'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { Budget } from '../src/budget.ts'
import { parseScope, scopeKey } from '../src/scope.ts'

const budget = new Budget()

it('clips any text to at most the tokens asked for, and keeps text that fits', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme', maxLength: 3_000 }),
      fc.integer({ min: 1, max: 200 }),
      (text, tokens) => {
        const clipped = budget.clip(text, tokens)
        expect(budget.count(clipped)).toBeLessThanOrEqual(tokens)
        if (budget.count(text) <= tokens) expect(clipped).toBe(text)
      },
    ),
    { numRuns: 200 },
  )
})

it('clips a 2 MB text by counting only its start', () => {
  let counted = 0
  const counting = new Budget(
    createTokenCounter((text) => {
      counted += text.length
      return Math.ceil(text.length / 4)
    }),
  )
  const clipped = counting.clip('word '.repeat(400_000), 300)
  expect(counting.count(clipped)).toBeLessThanOrEqual(300)
  // A binary search over the first 300 × 16 characters: about log2(4,800) counts of at most 4,800 characters.
  expect(counted).toBeLessThan(300 * 16 * 20)
})

it('accepts a scope id only when it cannot widen or split the scope key', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 40 }),
      fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
      (user, project) => {
        let key: string
        try {
          key = scopeKey(parseScope(user, project))
        } catch {
          return
        }
        expect(key.split('/').length).toBeLessThanOrEqual(2)
        expect(key).toMatch(/^[A-Za-z0-9][A-Za-z0-9._@+-]*(\/[A-Za-z0-9][A-Za-z0-9._@+-]*)?$/)
      },
    ),
  )
})
