/**
 * The features the learned layer reads: hashed character n-grams (1 to 4 characters, so Chinese, Japanese
 * and Korean words count as much as Latin ones) and hashed word unigrams and bigrams, of the folded,
 * lower-cased text. No n-gram is ever built as a string: each is hashed as it is read (FNV-1a), so the cost
 * is a constant per character and nothing grows with the text but the feature counts.
 */

/** 2^BITS buckets; the shipped weights have exactly this many. */
export const FEATURE_BITS = 16
const MASK = (1 << FEATURE_BITS) - 1
const CHAR_GRAMS = 4
const PRIME = 0x01000193

/** A bag of hashed features, counted, with the words of each word feature kept for explanations. */
export interface FeatureBag {
  counts: Map<number, number>
  /** bucket → a word or word pair that fell in it (for saying which words weighed most). */
  words: Map<number, string>
  total: number
}

const isWordChar = (code: number) =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x61 && code <= 0x7a) ||
  code === 0x5f ||
  (code >= 0xc0 && code !== 0xd7 && code !== 0xf7 && !isIdeographic(code) && !isPunctuation(code))
/** Han, kana and Hangul: each character is its own word for the word features. */
const isIdeographic = (code: number) =>
  (code >= 0x3040 && code <= 0x30ff) ||
  (code >= 0x3400 && code <= 0x9fff) ||
  (code >= 0xac00 && code <= 0xd7af)
const isPunctuation = (code: number) =>
  (code >= 0x2000 && code <= 0x206f) ||
  (code >= 0x3000 && code <= 0x303f) ||
  (code >= 0xff00 && code <= 0xff0f)

function add(bag: FeatureBag, bucket: number, word?: string) {
  bag.counts.set(bucket, (bag.counts.get(bucket) ?? 0) + 1)
  bag.total++
  if (word !== undefined && !bag.words.has(bucket)) bag.words.set(bucket, word)
}

/** Hashed features of `text` (already folded for matching). Linear: CHAR_GRAMS + 3 hashes per character. */
export function extractFeatures(text: string): FeatureBag {
  const bag: FeatureBag = { counts: new Map(), words: new Map(), total: 0 }
  const lower = text.toLowerCase()
  // Character n-grams over the text with white space runs read as one space.
  const codes: number[] = []
  let space = true
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i)
    const white = code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d
    if (white) {
      if (!space) codes.push(0x20)
      space = true
    } else {
      codes.push(code)
      space = false
    }
  }
  for (let i = 0; i < codes.length; i++) {
    let hash = 0x811c9dc5
    for (let n = 0; n < CHAR_GRAMS && i + n < codes.length; n++) {
      hash = Math.imul(hash ^ (codes[i + n] as number), PRIME)
      add(bag, (Math.imul(hash ^ (n + 1), PRIME) >>> 0) & MASK)
    }
  }
  // Words and word pairs.
  let previous: { hash: number; word: string } | null = null
  let start = -1
  const flush = (end: number) => {
    if (start < 0) return
    const word = lower.slice(start, end)
    start = -1
    let hash = 0x9e3779b1
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), PRIME)
    add(bag, (Math.imul(hash ^ 0x57, PRIME) >>> 0) & MASK, word)
    if (previous) {
      const pair = Math.imul(Math.imul(previous.hash, 31) ^ hash, PRIME)
      add(bag, (Math.imul(pair ^ 0xb1, PRIME) >>> 0) & MASK, `${previous.word} ${word}`)
    }
    previous = { hash, word }
  }
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i)
    if (isIdeographic(code)) {
      flush(i)
      start = i
      flush(i + 1)
    } else if (isWordChar(code) || (code >= 0xd800 && code <= 0xdfff)) {
      if (start < 0) start = i
    } else {
      flush(i)
    }
  }
  flush(lower.length)
  return bag
}
