import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stripIndexMarks, toIndexText } from '../src/search/cjk.ts'
import { EXCERPT_CHARS } from '../src/search/excerpt.ts'
import { parseSearchQuery } from '../src/search/query.ts'
import { excerptSnippet, hasSpace } from '../src/search/snippet.ts'
import { workGrowth } from '../src/testing/work.ts'

const snippet = (text: string, query: string, size = 8) =>
  stripIndexMarks(excerptSnippet(toIndexText(text) ?? text, parseSearchQuery(query), size))

describe('excerpt snippets of long rows', () => {
  it('marks the matched words around the first match, folding case and diacritics', () => {
    expect(
      snippet('one two three four five six seven Déploying now eight nine ten eleven twelve', 'deploy'),
    ).toBe('…six seven «Déploying» now eight nine ten eleven…')
    expect(snippet('The Kubernetes rollout', 'kubernetes rollout')).toBe('The «Kubernetes» «rollout»')
  })

  it('marks a CJK phrase and an identifier as one match each', () => {
    expect(snippet('我们用 FastAPI 做后端开发', '后端', 32)).toBe('我们用 FastAPI 做«后端»开发')
    expect(snippet('open my-app.config.ts now', 'my-app.config.ts')).toBe('open «my-app.config.ts» now')
  })

  it('falls back to the first tokens when the excerpt holds no literal match', () => {
    expect(snippet('a b c d e f g h i j k l', 'zebra', 4)).toBe('a b c d…')
  })

  it('returns text of the row, marks aside, for any text and query', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 400 }).filter((t) => !/[«»…]/.test(t))
    fc.assert(
      fc.property(text, fc.string({ maxLength: 20 }), fc.integer({ min: 1, max: 40 }), (t, q, size) => {
        const out = snippet(t, q, size).replace(/[«»]/g, '')
        for (const part of out.split('…')) expect(t).toContain(part)
      }),
    )
  })

  it('snippets a query of Han characters alone exactly as the general matcher does (property)', () => {
    // a term that never occurs turns the Han-only shortcut off and changes nothing else
    const han = fc.constantFrom('数', '据', '库', '后', '端', '的')
    const piece = fc.constantFrom(
      '数',
      '据',
      '库',
      '后',
      '端',
      '的',
      '。',
      ' ',
      'ab',
      'Déjà',
      '\u200b',
      '\n',
      '-',
    )
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }),
        fc.array(fc.array(han, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        (pieces, words, size) => {
          const text = toIndexText(pieces.join('')) ?? pieces.join('')
          const query = words.map((w) => w.join('')).join(' ')
          const terms = parseSearchQuery(query)
          const general = [...terms, ...parseSearchQuery('qqzzqq')]
          expect(excerptSnippet(text, terms, size)).toBe(excerptSnippet(text, general, size))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('finds the first match by string search exactly where the token scan finds it', () => {
    // "e " text takes the string-search path; "é " (a letter beyond ASCII) the token-by-token scan
    const piece = fc.constantFrom('ab', 'abc', 'Abcd', 'x', 'xab', '数', '据', ' ', '. ', '\n', '\u200b', '-')
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 600 }),
        fc.constantFrom('ab', 'abc', 'x', '数', 'abc 数据', 'zz'),
        fc.integer({ min: 0, max: 400 }),
        (pieces, query, pad) => {
          const text = pieces.join('')
          const terms = parseSearchQuery(query)
          const fast = excerptSnippet(`${'e '.repeat(pad)}${text}`, terms, 32)
          const scanned = excerptSnippet(`${'é '.repeat(pad)}${text}`, terms, 32)
          expect(fast).toBe(scanned.replaceAll('é', 'e'))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('does work linear in the excerpt, matches or not', () => {
    for (const [unit, query] of [
      ['lorem ipsum ', 'zebra'],
      ['b ', 'b'],
      ['数\u200b据\u200b库 ', 'zebra'],
    ] as const) {
      const excerpt = unit.repeat(Math.ceil(EXCERPT_CHARS / unit.length)).slice(0, EXCERPT_CHARS)
      const terms = parseSearchQuery(query)
      // 10× the excerpt costs about 10× the work (quadratic work would be 100×), counted, not timed.
      const growth = workGrowth(
        (chars) => excerptSnippet(excerpt.slice(0, chars), terms, 32),
        EXCERPT_CHARS / 10,
        10,
      )
      console.log(`excerpt snippet of "${unit}"…: 10× the excerpt, ${growth.toFixed(1)}× the work`)
      expect(growth, unit).toBeLessThan(15)
    }
  })
})

describe('white space between highlighted tokens', () => {
  it('is what a regex \\s says, for every code unit', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c)
      expect(hasSpace(`a${ch}b`, 1, 2), c.toString(16)).toBe(/\s/.test(ch))
    }
  })
})
