import { charClass } from './cjk.ts'
import type { SearchTerm } from './query.ts'

/** The marks around a highlighted match and at a cut, the same in FTS5 snippets and excerpt snippets. */
export const SNIPPET_MARKS = { open: '«', close: '»', ellipsis: '…' } as const

/** How much of a long row an excerpt snippet looks at (characters): the cost per hit stays bounded. */
export const EXCERPT_CHARS = 16_384

// A query word highlights longer words it begins (deploy → deployed), a rough stand-in for porter stemming.
const MIN_STEM_CHARS = 3
const MAX_STEMS = 64

/**
 * Calls `visit` with the UTF-16 range of each of the index's tokens (unicode61 classes; every CJK
 * character a token of its own) until it returns false.
 */
function scanTokens(text: string, visit: (start: number, end: number) => boolean): void {
  let start = -1
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number
    const width = cp > 0xffff ? 2 : 1
    const kind = charClass(cp)
    if (kind !== 1 && start >= 0) {
      if (!visit(start, i)) return
      start = -1
    }
    if (kind === 2 && !visit(i, i + width)) return
    if (kind === 1 && start < 0) start = i
    i += width
  }
  if (start >= 0) visit(start, text.length)
}

function tokenTexts(text: string): string[] {
  const out: string[] = []
  scanTokens(text, (start, end) => out.push(text.slice(start, end)) > 0)
  return out
}

const ASCII = /^[ -~]*$/
// unicode61 with remove_diacritics folds case and diacritics.
const fold = (token: string) =>
  ASCII.test(token) ? token.toLowerCase() : token.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

function matcher(terms: readonly SearchTerm[]): (token: string) => boolean {
  const words = new Set<string>()
  for (const term of terms) {
    for (const token of tokenTexts(term.text)) words.add(fold(token))
  }
  const stems = [...words].filter((w) => w.length >= MIN_STEM_CHARS).slice(0, MAX_STEMS)
  // Long rows repeat their words: each distinct token is folded and compared once.
  const seen = new Map<string, boolean>()
  return (token) => {
    let match = seen.get(token)
    if (match === undefined) {
      const key = fold(token)
      match = words.has(key) || stems.some((stem) => key.startsWith(stem))
      seen.set(token, match)
    }
    return match
  }
}

interface Window {
  starts: number[]
  ends: number[]
  matches: boolean[]
  from: number
  to: number
  /** Tokens follow the window (in the excerpt, or beyond the part of it that was read). */
  more: boolean
}

/**
 * The tokens of the snippet: from a few before the first match to `size` in all, or the first `size`
 * without a match. Stops reading the excerpt as soon as they are known.
 */
function chooseWindow(excerpt: string, terms: readonly SearchTerm[], size: number): Window {
  const isMatch = matcher(terms)
  const lead = Math.floor(size / 4)
  const starts: number[] = []
  const ends: number[] = []
  const matches: boolean[] = []
  let first = -1
  scanTokens(excerpt, (start, end) => {
    const match = isMatch(excerpt.slice(start, end))
    if (first < 0 && match) first = starts.length
    starts.push(start)
    ends.push(end)
    matches.push(match)
    return first < 0 || starts.length <= Math.max(0, first - lead) + size
  })
  const from = first < 0 ? 0 : Math.max(0, first - lead)
  const to = Math.min(starts.length, from + size)
  return { starts, ends, matches, from, to, more: starts.length > to }
}

/**
 * A snippet of about `size` tokens from `excerpt` (the first EXCERPT_CHARS characters of a long row),
 * around the first token that matches a query term, with matching tokens marked as FTS5's snippet()
 * marks them (adjacent matches not parted by white space share one pair of marks). Without a match in
 * the excerpt, its first tokens. Cost: linear in the excerpt read up to the first match, whatever the
 * number of matches.
 */
export function excerptSnippet(excerpt: string, terms: readonly SearchTerm[], size: number): string {
  const { open, close, ellipsis } = SNIPPET_MARKS
  const { starts, ends, matches, from, to, more } = chooseWindow(excerpt, terms, size)
  let out = from > 0 ? ellipsis : ''
  let pos = from > 0 ? (starts[from] as number) : 0
  let highlighting = false
  for (let k = from; k < to; k++) {
    const gap = excerpt.slice(pos, starts[k])
    if (highlighting && (!matches[k] || /\s/.test(gap))) {
      out += close
      highlighting = false
    }
    out += gap
    if (matches[k] && !highlighting) {
      out += open
      highlighting = true
    }
    pos = ends[k] as number
    out += excerpt.slice(starts[k], pos)
  }
  if (highlighting) out += close
  return more || excerpt.length >= EXCERPT_CHARS ? out + ellipsis : out + excerpt.slice(pos)
}
