/**
 * The words of a question counted in a candidate's text, for the windows' BM25 (rank.ts). Pure and linear:
 * one pass over the text per candidate, whatever the number of words asked.
 *
 * A word of letters or digits is compared by its light stem (a plural, -ed, -ing or -ly taken off), so
 * "painted" counts for "paint" and "classes" for "class"; a word of CJK characters (Han, kana, Hangul) is
 * counted where it occurs inside a run, since those runs are not split into words.
 */

/** Han, kana, Hangul and compatibility ideographs: the scripts whose runs are not split into words. */
const isCjkCode = (code: number) =>
  (code >= 0x3040 && code <= 0x30ff) ||
  (code >= 0x3400 && code <= 0x9fff) ||
  (code >= 0xac00 && code <= 0xd7af) ||
  (code >= 0xf900 && code <= 0xfaff)
function hasCjk(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (isCjkCode(word.charCodeAt(i))) return true
  return false
}
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

const NOT_WORD = /[^\p{L}\p{N}]+/u

/**
 * The words to count, as asked: CJK words as written; other words cut where the text's words are cut
 * ("self-care": "self", "care"; a letter cut off, the "s" of "Anna's", would count in every text) and
 * stemmed. Each once.
 */
export function windowWords(words: readonly string[]): string[] {
  const out = new Set<string>()
  for (const word of words) {
    if (hasCjk(word)) {
      out.add(word)
      continue
    }
    const parts = word.split(NOT_WORD).filter((part) => part.length > 0)
    for (const part of parts) if (parts.length === 1 || part.length > 1) out.add(lightStem(part))
  }
  return [...out]
}

export interface WordCounts {
  /** Per word of {@link windowWords}, in its order: how often the text holds it. */
  counts: number[]
  /** The text's length in words (a CJK character counts as one). */
  length: number
}

/**
 * A code unit of a word: an ASCII letter or digit, or a letter or number from U+0080 on (a character beyond
 * U+FFFF ends a word).
 */
const WORD_CHAR = /[\p{L}\p{N}]/u
const isWordCode = (code: number) =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x80 && WORD_CHAR.test(String.fromCharCode(code)))
/** An ASCII letter or digit in lower case, or -1. */
const asciiLower = (code: number) =>
  code >= 0x41 && code <= 0x5a
    ? code | 0x20
    : (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)
      ? code
      : -1
/** The first MIN_STEM characters of an ASCII word as one number, or -1. */
function asciiStart(text: string, from: number): number {
  let key = 0
  for (let k = 0; k < MIN_STEM; k++) {
    const code = asciiLower(text.charCodeAt(from + k))
    if (code < 0) return -1
    key = key * 128 + code
  }
  return key
}

/** Words of a text already looked up by one counter: at most this many kept (bounded memory). */
const MAX_REMEMBERED = 4096

/**
 * A counter of `words` (see {@link windowWords}) in texts: for each text, how often it holds each word, and
 * its length in words. One pass over each text's code units; a word is cut out and stemmed only when its
 * first letters are those of an asked word, and each such word once per counter.
 */
export function wordCounter(words: readonly string[]): (text: string) => WordCounts {
  const index = new Map<string, number>()
  // a stem keeps at least MIN_STEM letters of its word, so a longer word's first MIN_STEM letters rule out
  // most words before any is stemmed
  const starts = new Set<number>()
  // and, before that, their first letter (ASCII, lower case)
  const firsts = new Uint8Array(128)
  const cjk: [string, number][] = []
  words.forEach((word, i) => {
    if (hasCjk(word)) cjk.push([word, i])
    else {
      index.set(word, i)
      if (word.length >= MIN_STEM) starts.add(asciiStart(word, 0))
      const first = asciiLower(word.charCodeAt(0))
      if (first >= 0) firsts[first] = 1
    }
  })
  const remembered = new Map<string, number>()
  const lookUp = (word: string): number => {
    let i = remembered.get(word)
    if (i === undefined) {
      i = index.get(lightStem(word)) ?? -1
      if (remembered.size >= MAX_REMEMBERED) remembered.clear()
      remembered.set(word, i)
    }
    return i
  }
  return (text) => {
    const counts = new Array<number>(words.length).fill(0)
    let length = 0
    let start = -1
    let cjkRun = false
    for (let at = 0; at <= text.length; at++) {
      const code = at < text.length ? text.charCodeAt(at) : 0x20
      if (isWordCode(code)) {
        if (start < 0) {
          start = at
          cjkRun = false
        }
        if (isCjkCode(code)) cjkRun = true
        continue
      }
      if (start < 0) continue
      const from = start
      start = -1
      if (cjkRun) {
        const run = text.slice(from, at)
        length += run.length
        for (const [word, i] of cjk) {
          for (let found = run.indexOf(word); found >= 0; found = run.indexOf(word, found + word.length))
            counts[i] = (counts[i] as number) + 1
        }
        continue
      }
      length++
      if (at - from >= MIN_STEM) {
        const first = asciiLower(text.charCodeAt(from))
        if (first >= 0 && firsts[first] === 0) continue
        const key = asciiStart(text, from)
        // (a word that starts with a letter outside ASCII goes the long way)
        if (key >= 0 && !starts.has(key)) continue
      }
      const i = lookUp(text.slice(from, at))
      if (i >= 0) counts[i] = (counts[i] as number) + 1
    }
    return { counts, length }
  }
}

/** How often `text` holds each of `words` (see {@link wordCounter}), and its length in words. */
export const countWords = (text: string, words: readonly string[]): WordCounts => wordCounter(words)(text)
