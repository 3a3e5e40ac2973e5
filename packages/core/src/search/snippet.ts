import { charClass } from './cjk.ts'
import { EXCERPT_CHARS, SLICE_CHARS } from './excerpt.ts'
import type { SearchTerm } from './query.ts'

/** The marks around a highlighted match and at a cut, the same in FTS5 snippets and excerpt snippets. */
const SNIPPET_MARKS = { open: '«', close: '»', ellipsis: '…' } as const

// A query word highlights longer words it begins (deploy → deployed), a rough stand-in for porter stemming.
const MIN_STEM_CHARS = 3
const MAX_STEMS = 64

/** charClass of the ASCII characters, most of a scan's text, read without a call. */
const ASCII_CLASSES = Uint8Array.from({ length: 0x80 }, (_, c) => charClass(c))

/** A token's UTF-16 range [start, end) in its text. */
interface Span {
  start: number
  end: number
}

/**
 * The first token (unicode61 classes; every CJK character a token of its own, as a query's) at or after
 * offset `from` (a token boundary), written into `span`; false when there is none. A loop of calls, not a
 * callback: the scan is the hot part of a snippet.
 */
function nextToken(text: string, from: number, span: Span): boolean {
  for (let i = from; i < text.length; ) {
    const cp = text.codePointAt(i) as number
    const kind = cp < 0x80 ? (ASCII_CLASSES[cp] as number) : charClass(cp)
    const width = cp > 0xffff ? 2 : 1
    if (kind === 2) {
      span.start = i
      span.end = i + width
      return true
    }
    if (kind === 1) {
      span.start = i
      for (i += width; i < text.length; ) {
        const next = text.codePointAt(i) as number
        if ((next < 0x80 ? ASCII_CLASSES[next] : charClass(next)) !== 1) break
        i += next > 0xffff ? 2 : 1
      }
      span.end = i
      return true
    }
    i += width
  }
  return false
}

function tokenTexts(text: string): string[] {
  const out: string[] = []
  const span: Span = { start: 0, end: 0 }
  for (let i = 0; nextToken(text, i, span); i = span.end) out.push(text.slice(span.start, span.end))
  return out
}

const isHan = (c: number) => (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf)
const ASCII = /^[ -~]*$/
const ASCII_WORD = /^[ -~]+$/
const NOT_ASCII_OR_HAN = /[^\t\n\r -~\u200b\u3400-\u4dbf\u4e00-\u9fff]/g
// unicode61 with remove_diacritics folds case and diacritics; a Han character (a token of its own, the
// most common non-ASCII token) folds to itself.
const fold = (token: string) =>
  ASCII.test(token)
    ? token.toLowerCase()
    : token.length === 1 && isHan(token.charCodeAt(0))
      ? token
      : token.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

interface Matcher {
  /**
   * Does the token text[start, end) match a query word (folded equal, or beginning with a stem)? For any
   * token but one Han character, which is matched by `han`.
   */
  isMatch: (text: string, start: number, end: number) => boolean
  /** The query words that are one Han character, by code: such a token is matched without a call. */
  han: ReadonlySet<number>
  /** The stems among the folded query words. */
  stems: ReadonlySet<string>
  /**
   * Every query word, longest first, ASCII case ignored (a non-unicode `i` regex folds ASCII letters
   * only); null when a word is neither ASCII nor one Han character, or there are too many (see firstMatch).
   * Made on first use: most rows are too short to need it.
   */
  finder: () => RegExp | null
}

// A search snippets all its rows with one term list: its matcher (and the tokens it has folded) is made
// once per list, not once per row.
const matchers = new WeakMap<readonly SearchTerm[], Matcher>()

function matcher(terms: readonly SearchTerm[]): Matcher {
  let made = matchers.get(terms)
  if (made === undefined) {
    made = newMatcher(terms)
    matchers.set(terms, made)
  }
  return made
}

const NO_STEMS: ReadonlySet<string> = new Set()
const NEVER = () => false

/** The query's Han characters by code when every term is Han characters only, else null. */
function hanOnly(terms: readonly SearchTerm[]): Set<number> | null {
  const codes = new Set<number>()
  for (const { text } of terms) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (!isHan(code)) return null
      codes.add(code)
    }
  }
  return codes
}

/** Every query word, longest first, as one case-insensitive regex (see Matcher.finder), or null. */
function finderOf(words: ReadonlySet<string>): RegExp | null {
  const simple = [...words].every((w) => ASCII_WORD.test(w) || (w.length === 1 && isHan(w.charCodeAt(0))))
  return simple && words.size > 0 && words.size <= MAX_STEMS
    ? new RegExp(
        [...words]
          .sort((a, b) => b.length - a.length)
          .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('|'),
        'gi',
      )
    : null
}

/** The finder of `words`, made on first use: most rows are too short to need it. */
function lazyFinder(words: () => ReadonlySet<string>): () => RegExp | null {
  let finder: RegExp | null | undefined
  return () => {
    if (finder === undefined) finder = finderOf(words())
    return finder
  }
}

function newMatcher(terms: readonly SearchTerm[]): Matcher {
  // The common CJK query: each of its characters is a token of its own, matched by code; no other token
  // can match (a Han word is shorter than any stem), so nothing is folded or cut out of the text.
  const han = hanOnly(terms)
  if (han !== null) {
    const words = () => new Set([...han].map((code) => String.fromCharCode(code)))
    return { isMatch: NEVER, han, stems: NO_STEMS, finder: lazyFinder(words) }
  }
  return matcherOfWords(terms)
}

function matcherOfWords(terms: readonly SearchTerm[]): Matcher {
  const words = new Set<string>()
  for (const term of terms) {
    for (const token of tokenTexts(term.text)) words.add(fold(token))
  }
  const stems = [...words].filter((w) => w.length >= MIN_STEM_CHARS).slice(0, MAX_STEMS)
  // Long rows repeat their words: each distinct token is folded and compared once.
  const seen = new Map<string, boolean>()
  // A Han character is a token of its own that folds to itself and is shorter than any stem: it matches
  // when it is a query word, told by its code without cutting it out of the text.
  const han = new Set(
    [...words].flatMap((w) => (w.length === 1 && isHan(w.charCodeAt(0)) ? [w.charCodeAt(0)] : [])),
  )
  const isMatch = (text: string, start: number, end: number) => {
    const token = text.slice(start, end)
    let match = seen.get(token)
    if (match === undefined) {
      const key = fold(token)
      match = words.has(key) || stems.some((stem) => key.startsWith(stem))
      seen.set(token, match)
    }
    return match
  }
  return { isMatch, han, stems: new Set(stems), finder: lazyFinder(() => words) }
}

const isToken = (text: string, at: number) =>
  at >= 0 && at < text.length && charClass(text.charCodeAt(at)) === 1

/**
 * Is text[0, end) "simple": every character ASCII, a Han character, or a separator outside ASCII? Then
 * ASCII case is all the folding its tokens need, and each token is an ASCII run or one Han character.
 */
function simpleUpTo(text: string, end: number): boolean {
  // the regex reads only the prefix: a cut of a long string is a view of it, not a copy
  const prefix = end < text.length ? text.slice(0, end) : text
  NOT_ASCII_OR_HAN.lastIndex = 0
  for (let hit = NOT_ASCII_OR_HAN.exec(prefix); hit !== null; hit = NOT_ASCII_OR_HAN.exec(prefix)) {
    const c = prefix.charCodeAt(hit.index)
    if (charClass(c) !== 0 || (c >= 0xd800 && c <= 0xdfff)) return false
  }
  return true
}

/**
 * Where the first matching token starts, found by the engine's string search (the matcher's `finder`)
 * instead of a token-by-token scan; -1 without a match; undefined when the text up to the end of that
 * token (all of it without a match) or the words need folding beyond ASCII case (letters outside ASCII,
 * kana, Hangul, surrogates), where only the scan is exact. In simple text a word matches at an occurrence
 * that starts a token and, unless it is a stem, ends one; the finder tries longer words first, so the
 * first occurrence that passes is the first matching token.
 */
function firstMatch(text: string, matcher: Matcher): number | undefined {
  const finder = matcher.finder()
  const { stems } = matcher
  if (finder === null) return undefined
  finder.lastIndex = 0
  for (let hit = finder.exec(text); hit !== null; hit = finder.exec(text)) {
    const at = hit.index
    const word = hit[0].toLowerCase()
    const han = word.length === 1 && isHan(word.charCodeAt(0))
    if (han || (!isToken(text, at - 1) && (stems.has(word) || !isToken(text, at + word.length)))) {
      let end = at + word.length
      while (isToken(text, end)) end++
      return simpleUpTo(text, end) ? at : undefined
    }
    // occurrences may overlap: the next one can start inside this one
    finder.lastIndex = at + 1
  }
  return simpleUpTo(text, text.length) ? -1 : undefined
}

interface Window {
  /** A token of the text matched a query word. */
  found: boolean
  /** The tokens read, [0, count) of the scan buffers (see scanWindow): start, end, matched. */
  starts: Int32Array
  ends: Int32Array
  matches: Uint8Array
  from: number
  to: number
  /** Tokens follow the window (in the excerpt, or beyond the part of it that was read). */
  more: boolean
}

// The scan's token buffers, reused by every scan (a scan runs to its end synchronously, and its window is
// rendered before the next one): a row's snippet allocates no token arrays.
let starts = new Int32Array(256)
let ends = new Int32Array(256)
let matches = new Uint8Array(256)

function grow(): void {
  const size = starts.length * 2
  const [s, e, m] = [new Int32Array(size), new Int32Array(size), new Uint8Array(size)]
  s.set(starts)
  e.set(ends)
  m.set(matches)
  ;[starts, ends, matches] = [s, e, m]
}

/** Characters before the first match from which a shortened scan starts (enough for the lead tokens). */
const LOOKBACK_CHARS = 256

/**
 * The tokens of the snippet: from a few before the first match to `size` in all, or the first `size`
 * without a match. Stops reading the excerpt as soon as they are known; where the first match can be
 * found by string search (see firstMatch), the scan starts shortly before it.
 */
function chooseWindow(excerpt: string, terms: readonly SearchTerm[], size: number): Window {
  const m = matcher(terms)
  const lead = Math.floor(size / 4)
  // a short excerpt is scanned whole at once: where its first match lies would not shorten the scan
  if (excerpt.length <= LOOKBACK_CHARS) return scanWindow(excerpt, m, size, lead, 0, false)
  const known = firstMatch(excerpt, m)
  if (known !== undefined && known > LOOKBACK_CHARS) {
    let from = known - LOOKBACK_CHARS
    while (from < known && charClass(excerpt.charCodeAt(from)) === 1) from++
    const window = scanWindow(excerpt, m, size, lead, from, true, known)
    // the shortened scan is exact when it saw a token before the snippet's first one
    if (window.from > 0) return window
  }
  return scanWindow(excerpt, m, size, lead, 0, known === -1, known)
}

function scanWindow(
  excerpt: string,
  { isMatch, han }: Matcher,
  size: number,
  lead: number,
  offset: number,
  stopEarly: boolean,
  /** Where the first matching token starts, when firstMatch knows: the tokens before it are not matched. */
  known = -1,
): Window {
  let count = 0
  let first = -1
  const span: Span = { start: 0, end: 0 }
  for (let i = offset; nextToken(excerpt, i, span); i = span.end) {
    const { start, end } = span
    let match = false
    if (start === known) match = true
    else if (start > known) {
      // a Han character is its own token: matched by its code, without a call
      const code = excerpt.charCodeAt(start)
      match = end === start + 1 && isHan(code) ? han.has(code) : isMatch(excerpt, start, end)
    }
    if (first < 0 && match) first = count
    if (count === starts.length) grow()
    starts[count] = start
    ends[count] = end
    matches[count] = match ? 1 : 0
    count++
    // without a match the first `size` tokens are the snippet: reading on only looks for one
    if (first < 0 ? stopEarly && count > size : count > Math.max(0, first - lead) + size) break
  }
  const from = first < 0 ? 0 : Math.max(0, first - lead)
  const to = Math.min(count, from + size)
  return { found: first >= 0, starts, ends, matches, from, to, more: count > to }
}

/**
 * A snippet of about `size` tokens from `excerpt` (the first EXCERPT_CHARS characters of a long row),
 * around the first token that matches a query term, with matching tokens marked as FTS5's snippet()
 * marks them (adjacent matches not parted by white space share one pair of marks). Without a match in
 * the excerpt, its first tokens. Cost: linear in the excerpt read up to the first match, whatever the
 * number of matches.
 */
export function excerptSnippet(excerpt: string, terms: readonly SearchTerm[], size: number): string {
  return render(excerpt, chooseWindow(excerpt, terms, size))
}

/**
 * The snippet excerptSnippet makes of a row's excerpt, made from `slice`, the row's first SLICE_CHARS + 1
 * characters (all of them when it is shorter); null when the slice cannot tell, and the caller snippets
 * the excerpt. The slice tells when it is the whole row, or when it holds a match and a token after the
 * snippet's last: then every token up to the snippet's end is whole (only the slice's last token can be
 * cut, and a cut token is never inside the snippet), so it is the excerpt's snippet. `cut`: whether the row
 * is longer than the slice, when `slice` is a text decoded from a longer one (stripIndexMarks).
 */
export function sliceSnippet(
  slice: string,
  terms: readonly SearchTerm[],
  size: number,
  cut = slice.length > SLICE_CHARS,
): string | null {
  if (!cut) return excerptSnippet(slice, terms, size)
  const part = slice.length > SLICE_CHARS ? slice.slice(0, SLICE_CHARS) : slice
  const window = chooseWindow(part, terms, size)
  return window.found && window.more ? render(part, window) : null
}

/** Is a code unit of text[from, to) white space, as a regex's `\s` says (without running a regex)? */
export function hasSpace(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0) return true
    if (
      c >= 0x1680 &&
      (c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff)
    )
      return true
  }
  return false
}

// The window's text is copied in as few pieces as there are marks to put in it (not token by token). The
// excerpt is a row's text: the caller reads an index text back as its text first (stripIndexMarks).
function render(excerpt: string, { starts, ends, matches, from, to, more }: Window): string {
  const { open, close, ellipsis } = SNIPPET_MARKS
  let out = from > 0 ? ellipsis : ''
  let pos = from > 0 ? (starts[from] as number) : 0
  let highlighting = false
  for (let k = from; k < to; k++) {
    const start = starts[k] as number
    if (highlighting) {
      const previousEnd = ends[k - 1] as number
      if (!matches[k] || hasSpace(excerpt, previousEnd, start)) {
        out += excerpt.slice(pos, previousEnd) + close
        pos = previousEnd
        highlighting = false
      }
    }
    if (matches[k] && !highlighting) {
      out += excerpt.slice(pos, start) + open
      pos = start
      highlighting = true
    }
  }
  const end = to > from ? (ends[to - 1] as number) : pos
  out += excerpt.slice(pos, end)
  if (highlighting) out += close
  return more || excerpt.length >= EXCERPT_CHARS ? out + ellipsis : out + excerpt.slice(end)
}
