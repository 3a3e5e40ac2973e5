/**
 * The words of a question counted in a candidate's text, for the windows' BM25 (rank.ts). Pure and linear:
 * one pass over the text per candidate, whatever the number of words asked.
 *
 * A word of letters or digits is compared by its light stem (a plural, -ed, -ing or -ly taken off), so
 * "painted" counts for "paint" and "classes" for "class"; a word of CJK characters (Han, kana, Hangul) is
 * counted where it occurs inside a run, since those runs are not split into words.
 */

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u
const WORD = /[\p{L}\p{N}]+/gu
const SUFFIXES = ['ing', 'ed', 'es', 's', 'ly'] as const
/** Letters a stem keeps at least: "is" and "was" stay whole. */
const MIN_STEM = 3

/** A lower-cased word without a plural, -ed, -ing or -ly ending. */
export function lightStem(word: string): string {
  const lower = word.toLowerCase()
  for (const suffix of SUFFIXES) {
    if (lower.endsWith(suffix) && lower.length - suffix.length >= MIN_STEM)
      return lower.slice(0, -suffix.length)
  }
  return lower
}

/** The words to count, as asked: stems of the alphabetic words, CJK words as written; each once. */
export function windowWords(words: readonly string[]): string[] {
  const out = new Set<string>()
  for (const word of words) {
    if (word.length === 0) continue
    out.add(CJK.test(word) ? word : lightStem(word))
  }
  return [...out]
}

export interface WordCounts {
  /** Per word of {@link windowWords}, in its order: how often the text holds it. */
  counts: number[]
  /** The text's length in words (a CJK character counts as one). */
  length: number
}

/** How often `text` holds each of `words` (see {@link windowWords}), and its length in words. */
export function countWords(text: string, words: readonly string[]): WordCounts {
  const counts = new Array<number>(words.length).fill(0)
  const index = new Map<string, number>()
  const cjk: [string, number][] = []
  words.forEach((word, i) => {
    if (CJK.test(word)) cjk.push([word, i])
    else index.set(word, i)
  })
  let length = 0
  for (const match of text.matchAll(WORD)) {
    const token = match[0]
    if (CJK.test(token)) {
      length += token.length
      for (const [word, i] of cjk) {
        for (let at = token.indexOf(word); at >= 0; at = token.indexOf(word, at + word.length))
          counts[i] = (counts[i] as number) + 1
      }
      continue
    }
    length++
    const i = index.get(lightStem(token))
    if (i !== undefined) counts[i] = (counts[i] as number) + 1
  }
  return { counts, length }
}
