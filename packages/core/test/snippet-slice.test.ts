import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EXCERPT_CHARS, SLICE_CHARS } from '../src/search/excerpt.ts'
import { parseSearchQuery } from '../src/search/query.ts'
import { excerptSnippet, sliceSnippet } from '../src/search/snippet.ts'

// A hit's snippet is made from the first SLICE_CHARS + 1 characters of its row when they tell it, and from
// its EXCERPT_CHARS excerpt otherwise: either way it must be the excerpt's snippet.

const sliceOrExcerpt = (text: string, query: string) => {
  const terms = parseSearchQuery(query)
  return (
    sliceSnippet(text.slice(0, SLICE_CHARS + 1), terms, 32) ??
    excerptSnippet(text.slice(0, EXCERPT_CHARS), terms, 32)
  )
}

describe('snippets from a slice of the row', () => {
  it('equal the excerpt’s snippet, wherever the first match lies and whatever the slice cuts', () => {
    const piece = fc.constantFrom(
      'ab',
      'abc',
      'Abcd',
      'abcdef',
      'x',
      '数',
      '据',
      ' ',
      '. ',
      '\n',
      '\u200b',
      'é',
      '😀',
    )
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 300 }),
        fc.integer({ min: 0, max: SLICE_CHARS + 200 }),
        fc.constantFrom('ab', 'abc', 'abcd', 'x', '数', 'abc 数据', 'zz'),
        (pieces, pad, query) => {
          // padding moves the text across the slice's end: the first match before it, at it, after it
          const text = `${'q '.repeat(pad >> 1)}${pieces.join('')}`
          expect(sliceOrExcerpt(text, query)).toBe(
            excerptSnippet(text.slice(0, EXCERPT_CHARS), parseSearchQuery(query), 32),
          )
        },
      ),
      { numRuns: 400 },
    )
  })

  it('tells the snippet from the slice when the row holds a match early, and defers when it cannot', () => {
    const terms = parseSearchQuery('deploy')
    const long = `we deploy today ${'filler '.repeat(1000)}`
    expect(sliceSnippet(long.slice(0, SLICE_CHARS + 1), terms, 8)).toBe(
      'we «deploy» today filler filler filler filler filler…',
    )
    // the only match lies beyond the slice
    const late = `${'filler '.repeat(400)}deploy`
    expect(sliceSnippet(late.slice(0, SLICE_CHARS + 1), terms, 8)).toBeNull()
    // a word cut by the slice's end ("deployment" read as "deploy") is never taken for a match
    const cut = `${'x'.repeat(SLICE_CHARS - 7)} deployment and more`
    expect(sliceSnippet(cut.slice(0, SLICE_CHARS + 1), parseSearchQuery('deploy'), 8)).toBeNull()
  })
})
