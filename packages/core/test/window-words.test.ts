import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countWords, lightStem, windowWords } from '../src/search/window-words.ts'

describe('the words a window counts (rank.ts: windows)', () => {
  it('compares alphabetic words by a light stem, CJK words inside their runs', () => {
    expect(lightStem('Painted')).toBe('paint')
    expect(lightStem('classes')).toBe('class')
    expect(lightStem('was')).toBe('was')
    const words = windowWords(['painting', 'sunset', '乔迁', '礼物', 'painted'])
    expect(words).toEqual(['paint', 'sunset', '乔迁', '礼物'])
    expect(countWords('She paints sunsets; I painted one too. 乔迁礼物选好了，礼物很贵', words)).toEqual({
      counts: [2, 1, 1, 2],
      length: 7 + 11,
    })
    expect(countWords('', words)).toEqual({ counts: [0, 0, 0, 0], length: 0 })
  })

  it('cuts an asked word as it cuts the text: "self-care" counts "self" and "care"', () => {
    // the query parser keeps "self-care" whole (a phrase); the text's words are cut at the hyphen, so the
    // whole word was never counted and a window of "self-care" turns scored nothing (LoCoMo conv-26)
    const words = windowWords(['self-care', "Melanie's", 'e-mail'])
    expect(words).toEqual(['self', 'care', 'melanie', 'mail'])
    expect(countWords("Self-care first: I care for myself. Melanie's e-mail", words).counts).toEqual([
      1, 2, 1, 1,
    ])
    expect(windowWords(['a', '7'])).toEqual(['a', '7'])
  })

  it('counts as the plain definition does: words of letters and digits by their stems, CJK inside runs', () => {
    const reference = (text: string, words: readonly string[]) => {
      const counts = words.map(() => 0)
      let length = 0
      for (const [token] of text.matchAll(/[\p{L}\p{N}]+/gu)) {
        if (/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u.test(token)) {
          length += token.length
          words.forEach((word, i) => {
            if (!/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u.test(word)) return
            for (let at = token.indexOf(word); at >= 0; at = token.indexOf(word, at + word.length))
              counts[i] = (counts[i] as number) + 1
          })
          continue
        }
        length++
        const i = words.indexOf(lightStem(token))
        if (i >= 0) counts[i] = (counts[i] as number) + 1
      }
      return { counts, length }
    }
    const piece = fc.constantFrom(
      'Paint',
      'painted',
      'paints',
      'ed',
      'İs',
      'été',
      'ÉTÉ',
      'a',
      '7',
      'x2',
      '礼物',
      '乔迁',
      '。',
      ' ',
      ',',
      '-',
      '\n',
      'ing',
      'Sİng',
    )
    const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 5 }), (body, asked) => {
        const words = windowWords(asked)
        expect(countWords(body, words)).toEqual(reference(body, words))
      }),
      { numRuns: 2000 },
    )
  })

  it('counts no more words than the text has, in time linear in the text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 8 }),
        fc.string({ maxLength: 400 }),
        (asked, text) => {
          const words = windowWords(asked)
          const { counts, length } = countWords(text, words)
          expect(counts).toHaveLength(words.length)
          const cjk = words.filter((w) => /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u.test(w))
          // an alphabetic word counts once per token at most; a CJK word once per place it starts
          const alphabetic = counts.filter((_, i) => !cjk.includes(words[i] as string))
          expect(alphabetic.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(length)
          for (const count of counts) expect(count).toBeLessThanOrEqual(text.length)
        },
      ),
    )
  })
})
