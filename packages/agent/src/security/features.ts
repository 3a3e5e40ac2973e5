/**
 * The features the learned layer reads: hashed character 4-grams, hashed word unigrams and bigrams of the
 * folded, lower-cased text (the digits of a number read as 0s, see {@link numberDigits}), and named features
 * (the cue groups of families.ts held by a sentence, and their pairs). No n-gram is built as a string: each
 * is hashed as it is read (FNV-1a), so the cost is a constant per character.
 */

/** 2^BITS buckets; the shipped weights have exactly this many. */
export const FEATURE_BITS = 18
const MASK = (1 << FEATURE_BITS) - 1
/**
 * Character 4-grams alone: shorter ones carry little that the word features (each Chinese, Japanese or
 * Korean character is a word) do not, and cost more features; 4-grams alone measured as well as 3–4 and
 * 1–4 leave one writer out, at a quarter of the 1–4-grams' features.
 */
const CHAR_GRAMS = 4
const PRIME = 0x01000193
const WORD_SEED = 0x9e3779b1

/**
 * The n-gram features of one text: `count` buckets, and for word features where the word (or word pair)
 * sits in the lower-cased text (`from`/`to`; -1 for character n-grams), so an explanation can quote it
 * without the scan building strings. One scratch buffer, reused by the next call.
 */
export interface Ngrams {
  count: number
  buckets: Uint32Array
  from: Int32Array
  to: Int32Array
}

/** At most this many features per character: its character n-grams, a word and a word pair. */
export const FEATURES_PER_CHAR = 3
const scratch: Ngrams = {
  count: 0,
  buckets: new Uint32Array(4096),
  from: new Int32Array(4096),
  to: new Int32Array(4096),
}
let numeral = new Uint8Array(4096)

const isDigit = (code: number) => code >= 0x30 && code <= 0x39
const isAsciiWordChar = (code: number) => isDigit(code) || (code >= 0x61 && code <= 0x7a) || code === 0x5f

/**
 * Marks in `numeral` the digits that form numbers: runs of ASCII letters, digits and `_` made of digits only
 * (`4`, `2023`, `192.168.1.1`'s parts). They are read as 0s: which number a note holds says nothing about its
 * intent, and before, "worker 4 entry 0: 用户喜欢简洁的回答" scored 0.83 (refused) where "worker 7 entry 1"
 * scored 0.10. A run with a letter (a hash, `v2`, hex) keeps its digits: folded, every hex string would read
 * like the hex payloads of the training lists. Linear: one pass.
 */
function numberDigits(lower: string): Uint8Array {
  if (numeral.length < lower.length) numeral = new Uint8Array(lower.length)
  let start = 0
  let letters = false
  for (let i = 0; i <= lower.length; i++) {
    const code = i < lower.length ? lower.charCodeAt(i) : 0x20
    if (isAsciiWordChar(code)) {
      if (!isDigit(code)) letters = true
      continue
    }
    numeral.fill(letters ? 0 : 1, start, i)
    if (i < lower.length) numeral[i] = 0
    start = i + 1
    letters = false
  }
  return numeral
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
const isWhite = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d

/**
 * Every n-gram feature of `lower` (folded and lower-cased), in the shared scratch buffer (valid until the
 * next call). Linear: one character n-gram hash per character, two per word, no callback and no allocation once
 * the buffer has grown to the longest text.
 */
export function ngrams(lower: string): Ngrams {
  const needed = FEATURES_PER_CHAR * lower.length + 2
  if (scratch.buckets.length < needed) {
    scratch.buckets = new Uint32Array(needed)
    scratch.from = new Int32Array(needed)
    scratch.to = new Int32Array(needed)
  }
  const { buckets, from, to } = scratch
  const number = numberDigits(lower)
  let total = 0
  // Character 4-grams over the text with white space runs read as one space (and leading white space
  // dropped): each window of four such characters, read once each, in the order the windows end.
  let c0 = 0
  let c1 = 0
  let c2 = 0
  let seen = 0
  let previousWhite = true
  for (let i = 0; i < lower.length; i++) {
    let code = lower.charCodeAt(i)
    if (number[i] === 1) code = 0x30
    if (isWhite(code)) {
      if (previousWhite) continue
      previousWhite = true
      code = 0x20
    } else previousWhite = false
    if (++seen >= CHAR_GRAMS) {
      const hash = Math.imul(
        Math.imul(Math.imul(Math.imul(0x811c9dc5 ^ c0, PRIME) ^ c1, PRIME) ^ c2, PRIME) ^ code,
        PRIME,
      )
      buckets[total] = (Math.imul(hash ^ CHAR_GRAMS, PRIME) >>> 0) & MASK
      from[total] = -1
      total++
    }
    c0 = c1
    c1 = c2
    c2 = code
  }
  // Words and word pairs, each word hashed as it is read.
  let previous = -1
  let previousStart = 0
  let start = -1
  let running = WORD_SEED
  for (let i = 0; i <= lower.length; i++) {
    let code = i < lower.length ? lower.charCodeAt(i) : 0x20
    if (i < lower.length && number[i] === 1) code = 0x30
    const ideographic = isIdeographic(code)
    if (!ideographic && (isWordChar(code) || (code >= 0xd800 && code <= 0xdfff))) {
      if (start < 0) {
        start = i
        running = WORD_SEED
      }
      running = Math.imul(running ^ code, PRIME)
      continue
    }
    // A word ends here; an ideographic character is a word of its own, read right after it.
    for (let pass = start < 0 ? 1 : 0; pass < (ideographic ? 2 : 1); pass++) {
      const hash = pass === 1 ? Math.imul(WORD_SEED ^ code, PRIME) : running
      const wordStart = pass === 1 ? i : start
      const end = pass === 1 ? i + 1 : i
      buckets[total] = (Math.imul(hash ^ 0x57, PRIME) >>> 0) & MASK
      from[total] = wordStart
      to[total] = end
      total++
      if (previous !== -1) {
        const pair = Math.imul(Math.imul(previous, 31) ^ hash, PRIME)
        buckets[total] = (Math.imul(pair ^ 0xb1, PRIME) >>> 0) & MASK
        from[total] = previousStart
        to[total] = end
        total++
      }
      previous = hash
      previousStart = wordStart
    }
    start = -1
  }
  scratch.count = total
  return scratch
}

/** The bucket of a named feature (`SEND+CHANNEL`). */
export function namedBucket(name: string): number {
  let hash = 0x3c6ef372
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), PRIME)
  return (Math.imul(hash ^ 0x4e, PRIME) >>> 0) & MASK
}
