/**
 * User text → search terms, as data (text, phrase, prefix flag, kind) for the CJK-aware index (see
 * `cjk.ts`). Each dialect builds its own query text from them: FTS5 MATCH on SQLite
 * (dialects/sqlite/match.ts: each term a double-quoted string, so no user character can act as an
 * operator), a tsquery over bound parameters on PostgreSQL (dialects/postgres/search.ts).
 *
 * - Terms: words, balanced "quoted phrases" (one phrase each), identifiers (`chat-send`, `P2.2`,
 *   `my-app.config.ts`, `sp_new1`, `col:term` → one phrase each), prefix terms (`deploy*`),
 *   and CJK runs as phrases of single characters (`做后端` → phrase `做 后 端`).
 * - Stop-words (stopwords.ts) are dropped unless the query has nothing else. Bare upper-case `AND`, `OR`,
 *   `NOT` are not operators here (boolean syntax is not supported): they count as stop-words.
 * - Long CJK runs also yield helper terms: the parts between stop-words (我们上次决定用什么数据库 → 决定用,
 *   数据库; parts of one character only when it is a kanji/hanzi: 猫の名前 → 猫, 名前) and, for Han runs of 4+ characters, their bigrams; a Hangul word also yields its stem without
 *   particle / ending (데이터베이스를 → 데이터베이스). The verbatim run stays a term, so an exact match
 *   still ranks first.
 * - Bounded: input capped at 2,048 UTF-16 units, at most 32 terms of at most 256 units each; everything is
 *   one linear pass. Never throws.
 */
import { charClass, splitCjk } from './cjk.ts'
import {
  CJK_STOPWORDS,
  ENGLISH_STOPWORDS,
  JAPANESE_PARTICLES,
  KOREAN_STOPWORDS,
  KOREAN_SUFFIXES,
} from './stopwords.ts'

const MAX_QUERY_CHARS = 2048
export const MAX_QUERY_TERMS = 32
const MAX_TERM_CHARS = 256

type SearchTermKind = 'word' | 'prefix' | 'identifier' | 'phrase' | 'cjk' | 'mixed'

export interface SearchTerm {
  /** The term's text (sanitised, CJK not yet spaced). */
  text: string
  /** The text as the index splits it: CJK characters spaced apart (`做 后 端`), the rest as `text`. */
  phrase: string
  /** Matches words that start with the phrase's last word (`deploy*`). */
  prefix: boolean
  kind: SearchTermKind
  /** Contains CJK characters. */
  cjk: boolean
  /** false for helper terms derived from a longer term (CJK parts and bigrams, Korean stems, y-prefix). */
  primary: boolean
  /** A stop-word (or bare AND/OR/NOT); kept only when the query has no other term. */
  stop: boolean
}

export interface ParseOptions {
  /** Maximum number of terms (default 32). */
  maxTerms?: number
}

/** Characters kept inside a word so that identifiers stay one phrase (`my-app.config.ts`, `100%`). */
const CONNECTORS = new Set(['.', '-', '_', '/', ':', '@', '#', '%', '&', "'", '\\', '$', '~'])
const OPERATOR_WORDS = new Set(['AND', 'OR', 'NOT'])
const MAX_STOP_LEN = Math.max(...[...CJK_STOPWORDS].map((w) => [...w].length))

const isHangul = (cp: number) =>
  (cp >= 0x1100 && cp <= 0x11ff) ||
  (cp >= 0x3130 && cp <= 0x318f) ||
  (cp >= 0xa960 && cp <= 0xa97f) ||
  (cp >= 0xac00 && cp <= 0xd7ff) ||
  (cp >= 0xffa0 && cp <= 0xffdc)
const isHiragana = (ch: string | undefined) => ch !== undefined && ch >= '\u3041' && ch <= '\u309f'
const HAN = /\p{Script=Han}/u

/** Collects terms; dedupes; keeps primary terms before derived ones. */
class Terms {
  readonly primary: SearchTerm[] = []
  readonly derived: SearchTerm[] = []
  private readonly seen = new Set<string>()

  add(
    text: string,
    kind: SearchTermKind,
    primary: boolean,
    stop: boolean,
    cjk: boolean,
    prefix = false,
  ): void {
    if (text.length === 0) return
    if (text.length > MAX_TERM_CHARS) {
      let end = MAX_TERM_CHARS
      const c = text.charCodeAt(end - 1)
      if (c >= 0xd800 && c <= 0xdbff) end--
      text = text.slice(0, end)
    }
    const body = cjk ? (splitCjk(text, ' ') ?? text) : text
    // one term per phrase and prefix flag, whatever their case (the index folds case)
    const key = `${prefix ? '*' : ' '}${body.toLowerCase()}`
    if (this.seen.has(key)) return
    this.seen.add(key)
    ;(primary ? this.primary : this.derived).push({
      text,
      phrase: body,
      prefix,
      kind,
      cjk,
      primary,
      stop,
    })
  }
}

/** Splits a Han/kana run at stop-words; returns the remaining parts (possibly none). */
function splitAtStopwords(chars: string[]): string[][] {
  const parts: string[][] = []
  let start = 0
  let i = 0
  while (i < chars.length) {
    let matched = 0
    for (let len = Math.min(MAX_STOP_LEN, chars.length - i); len >= 1; len--) {
      if (CJK_STOPWORDS.has(chars.slice(i, i + len).join(''))) {
        matched = len
        break
      }
    }
    if (matched === 0 && JAPANESE_PARTICLES.has(chars[i] as string) && !isHiragana(chars[i - 1])) matched = 1
    if (matched > 0) {
      if (i > start) parts.push(chars.slice(start, i))
      i += matched
      start = i
    } else i++
  }
  if (start < chars.length) parts.push(chars.slice(start))
  return parts
}

function koreanStem(word: string): string | null {
  const n = [...word].length
  for (const suffix of KOREAN_SUFFIXES) {
    if (word.endsWith(suffix) && n - [...suffix].length >= 2)
      return word.slice(0, word.length - suffix.length)
  }
  return null
}

/** A run of CJK characters (as code-point strings). */
function addCjkRun(terms: Terms, chars: string[], primary: boolean): void {
  if (chars.length === 0 || (!primary && chars.length < 2)) return
  const text = chars.join('')
  if (chars.some((ch) => isHangul(ch.codePointAt(0) as number))) {
    terms.add(text, 'cjk', primary, KOREAN_STOPWORDS.has(text), true)
    const stem = koreanStem(text)
    if (stem) terms.add(stem, 'cjk', false, KOREAN_STOPWORDS.has(stem), true)
    return
  }
  const parts = splitAtStopwords(chars)
  terms.add(text, 'cjk', primary, parts.length === 0, true)
  const split = !(parts.length === 1 && parts[0]?.length === chars.length)
  for (const part of parts) {
    // a single kanji between particles is usually a word (猫の名前 → 猫, 名前); a single kana is noise
    if (split && (part.length >= 2 || HAN.test(part[0] as string)))
      terms.add(part.join(''), 'cjk', false, false, true)
    if (part.length >= 4 && HAN.test(part.join(''))) {
      for (let i = 0; i + 1 < part.length; i++)
        terms.add(`${part[i]}${part[i + 1]}`, 'cjk', false, false, true)
    }
  }
}

/** A piece without CJK: a word, or an identifier (token characters joined by connectors). */
function addPlain(terms: Terms, core: string, primary: boolean, prefix: boolean): void {
  let single = true
  for (const ch of core) {
    if (CONNECTORS.has(ch)) {
      single = false
      break
    }
  }
  if (!single) {
    terms.add(core, 'identifier', primary, false, false, prefix)
    return
  }
  if (prefix) {
    terms.add(core, 'prefix', primary, false, false, true)
    // porter stems the prefix too: "deploy" * becomes "deploi" * and misses "deployment" (stem "deploy")
    if (core.length >= 4 && /[yY]$/.test(core))
      terms.add(core.slice(0, -1), 'prefix', false, false, false, true)
    return
  }
  const stop = OPERATOR_WORDS.has(core) || ENGLISH_STOPWORDS.has(core.toLowerCase())
  terms.add(core, 'word', primary, stop, false)
}

/** A whitespace/punctuation-delimited chunk of free text. */
function addChunk(terms: Terms, raw: string, prefix: boolean): void {
  // trim connectors at both ends
  let s = 0
  let e = raw.length
  while (s < e && CONNECTORS.has(raw[s] as string)) s++
  while (e > s && CONNECTORS.has(raw[e - 1] as string)) e--
  if (s === e) return
  const core = raw.slice(s, e)
  if (e < raw.length) prefix = false
  // split into CJK runs and other pieces
  const pieces: { cjk: boolean; chars: string[] }[] = []
  for (const ch of core) {
    const cjk = charClass(ch.codePointAt(0) as number) === 2
    const last = pieces[pieces.length - 1]
    if (last && last.cjk === cjk) last.chars.push(ch)
    else pieces.push({ cjk, chars: [ch] })
  }
  const first = pieces[0]
  if (pieces.length === 1 && first) {
    if (first.cjk) addCjkRun(terms, first.chars, true)
    else addPlain(terms, core, true, prefix)
    if (first.cjk && prefix) terms.add(core, 'cjk', true, false, true, true)
    return
  }
  // mixed script (Agent通信, 100%完成): the whole chunk as a phrase, its parts as helper terms
  terms.add(core, 'mixed', true, false, true, prefix)
  for (const piece of pieces) {
    if (piece.cjk) addCjkRun(terms, piece.chars, false)
    else {
      let p = piece.chars.join('')
      let a = 0
      let b = p.length
      while (a < b && CONNECTORS.has(p[a] as string)) a++
      while (b > a && CONNECTORS.has(p[b - 1] as string)) b--
      p = p.slice(a, b)
      if (p.length > 0) addPlain(terms, p, false, false)
    }
  }
}

/** Free (unquoted) text: chunks of token characters and connectors; `*` right after a word = prefix. */
function addFreeText(terms: Terms, text: string): void {
  let start = -1
  let i = 0
  const n = text.length
  while (i < n) {
    const cp = text.codePointAt(i) as number
    const w = cp > 0xffff ? 2 : 1
    const ch = text[i] as string
    const inChunk = charClass(cp) !== 0 || (w === 1 && CONNECTORS.has(ch))
    if (inChunk) {
      if (start < 0) start = i
    } else if (start >= 0) {
      const prev = text.codePointAt(i - 1) as number
      const prefix =
        ch === '*' &&
        charClass(prev >= 0xdc00 && prev <= 0xdfff ? (text.codePointAt(i - 2) as number) : prev) !== 0
      addChunk(terms, text.slice(start, i), prefix)
      start = -1
    }
    i += w
  }
  if (start >= 0) addChunk(terms, text.slice(start), false)
}

/** The contents of a balanced "quoted phrase": one phrase term (separators collapsed to spaces). */
function addPhrase(terms: Terms, content: string): void {
  let out = ''
  let space = false
  let cjk = false
  for (const ch of content) {
    const k = charClass(ch.codePointAt(0) as number)
    if (k === 0) space = out.length > 0
    else {
      if (space) out += ' '
      out += ch
      space = false
      if (k === 2) cjk = true
    }
  }
  if (out.length > 0) terms.add(out, 'phrase', true, false, cjk)
}

/** Parses user text into search terms (already stop-word filtered, deduped and capped). Never throws. */
export function parseSearchQuery(userText: string, options: ParseOptions = {}): SearchTerm[] {
  if (typeof userText !== 'string') return []
  const text = userText.length > MAX_QUERY_CHARS ? userText.slice(0, MAX_QUERY_CHARS) : userText
  const terms = new Terms()
  let pos = 0
  while (pos < text.length) {
    const open = text.indexOf('"', pos)
    if (open < 0) {
      addFreeText(terms, text.slice(pos))
      break
    }
    addFreeText(terms, text.slice(pos, open))
    const close = text.indexOf('"', open + 1)
    if (close < 0) {
      // a stray quote: ignore it, the rest is free text
      addFreeText(terms, text.slice(open + 1))
      break
    }
    addPhrase(terms, text.slice(open + 1, close))
    pos = close + 1
  }
  const all = [...terms.primary, ...terms.derived]
  const content = all.filter((t) => !t.stop)
  const kept = content.length > 0 ? content : all
  const max = Math.max(1, Math.min(options.maxTerms ?? MAX_QUERY_TERMS, MAX_QUERY_TERMS))
  return kept.slice(0, max)
}
