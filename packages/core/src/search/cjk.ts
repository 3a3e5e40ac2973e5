/**
 * CJK support for the FTS5 index.
 *
 * The FTS5 tables use `tokenize='porter unicode61 remove_diacritics 2'`. `unicode61` treats a whole run of
 * Han / kana / Hangul as ONE token, so 后端 inside 做后端 could never be found. Before a text is indexed it
 * is turned into an *index text* in which a CJK run is its overlapping pairs of characters and its last
 * character, each a token of its own (做后端 → 做后 后端 端), parted by U+200B ZERO WIDTH SPACE (category Cf,
 * a separator for unicode61; PostgreSQL's search reads it as a space). A query for 后端 then becomes the
 * token `后端`, and 做后端 the phrase `"做后 后端"` (see `index-phrase.ts`): each matches exactly the
 * verbatim substring, from the short position lists of pairs rather than the long ones of single, common
 * characters. porter still stems the Latin words. `stripIndexMarks` turns an index text back into its text.
 *
 * Which characters are separators is not guessed from JavaScript's (newer) Unicode tables: the table below
 * is SQLite's own unicode61 classification, measured with both bundled SQLite builds (3.45.1 in libsql,
 * 3.53.2 in better-sqlite3 — identical), and `test/cjk.test.ts` re-checks it against the real tokenizer.
 * (SQLite's tables are older than JavaScript's: e.g. emoji newer than Unicode 6 and unassigned code points
 * are *token* characters for unicode61, so 完成🤖 needs a mark between 成 and 🤖.)
 */

/** The character inserted by `toIndexText`. */
export const INDEX_MARK = '\u200B'

/**
 * The code points unicode61 treats as separators (with the default `categories` and
 * `remove_diacritics 2`), as ranges: pairs of base-36 numbers "gap since the previous range's end - 1,
 * length - 1". Everything else (outside the UTF-16 surrogate block) is a token character.
 */
const SEPARATOR_RANGES =
  '0,1b,a,6,q,5,q,1a,1,6,2,0,1,2,2,0,3,0,n,0,v,0,cq,3,c,d,5,6,1,0,1,g,5,0,7,1,1,0,1,8,1,6,6,3,2,0,2' +
  ',1p,5,0,8,0,5,1,1,0,32,0,3v,7,5s,5,15,1,4,0,1,1i,17,1,b,4,1,l,2,1,17,k,a,3,2,0,2r,0,1,e,2,6,f,1,' +
  '1,d,1,0,1,0,u,q,2j,a,1m,8,2,3,s,3,1,8,1,2,1,4,2,e,q,2,2,0,3p,q,1,3,1i,2,1,h,1,6,a,3,a,0,g,2,1k,0' +
  ',1,6,2,1,2,2,9,0,a,1,e,1,6,1,5,2,1k,0,1,4,4,1,2,2,3,0,u,1,3,0,b,2,1k,0,1,7,1,2,1,2,k,1,c,1,f,2,1' +
  'k,0,1,6,2,1,2,2,8,1,a,1,c,0,h,0,1n,4,3,2,1,3,9,0,r,7,6,2,1m,6,1,2,1,3,7,1,b,1,r,0,2,1,1k,0,1,6,1' +
  ',2,1,3,7,1,b,1,u,1,1m,6,1,2,1,3,9,0,a,1,l,0,8,1,1y,0,4,5,1,0,1,7,i,2,1o,0,2,6,4,0,7,8,a,1,2d,0,2' +
  ',5,1,1,b,5,1f,u,k,b,1d,m,5,a,1,z,1,e,1,c,28,j,b,5,6,3,4,2,1,2,2,6,3,3,d,b,1,0,a,5,2j,0,gx,b,13,9' +
  ',2u,0,h8,1,h,0,q,1,26,2,10,2,t,4,r,1,u,1,1s,y,1,3,1,0,y,e,4a,0,3a,b,4,b,4,0,3,1,2y,g,7,1,k,x,n,4' +
  ',2,1,1h,9,1,s,2,0,w,6,1,5,2a,4,1b,g,l,y,3,2,u,c,1k,d,8,3,10,j,3,4,1q,1,1s,7,8,o,4,0,4,2,5n,12,l,' +
  '3,cd,0,1,2,b,2,d,2,d,2,d,1,1,2s,5,5,a,4,b,4,h,p,m,w,f,1,1,3,1,1,a,0,1,2,5,5,1,0,1,0,1,0,4,0,b,1,' +
  '4,4,5,3,1,0,1s,gz,c,12,p,a,29,25,m,e7,1,38,u,qg,3,9,az,5,4,2,7,3,1,1,34,0,e,0,2o,26,1,b,1w,p,1,2' +
  'g,c,5x,q,b,4,4,3,o,9,6,5,1,5,2,2h,3,3,0,2i,0,44,1,4,9,w,z,s,u,b,t,8,0,f,v,a,12,f,1q,1,73,534,1r,' +
  'h3k,1i,1j,1,7h,2,2n,f,w,0,28,7,8,m,9,1,2v,1,3b,0,3,0,4,0,n,8,a,3,1m,3,8,1,1e,g,9,1,g,h,6,2,17,9,' +
  'n,c,b,0,w,3,1b,q,g,1,21,d,c,0,8,1,e,3,n,2,1,0,1g,0,1,2,2,1,5,1,1,0,s,1,b,6,3,1,6k,a,fn4,0,a,0,3s' +
  ',f,ak,1,58,1,2,p,6,6,9,y,1,i,1,3,43,0,1,e,a,6,q,5,q,a,3e,6,1,6,a,6,74,2,1g,8,1l,g,6,b,1g,19,bl,0' +
  ',1c,0,w6,0,5j,0,v,0,5d,2,1,1,5,3,14,2,4,0,g,8,12,0,55,6,xs,2,1h,l,1e,2,19,h,1q,2,10,d,b,3,1o,2,1' +
  'c,d,4,3,yq,c,2pk,3,esd,19,g,3,j1p,6t,a,12,2,50,y,1x,56,2e,oa,0,p,0,v,0,p,0,v,0,p,0,v,0,p,0,v,0,p' +
  ',0,4ks,1,7i,17,4,2r,c,e,2,d,2,e,1,e,1c,u,1,1n,4,16,23,s,d,16,5,8,7,1,4u,w,f,5,1,1x,3,j,c,10,1,4,' +
  'l,g,f,1q,1,0,1,51,1,3,3,1p,2,3,c,n,43,1x,4,a,1c,1x,1m,37,gwi5,0,u,2n,3k,6n'

const SEP = 0
const TOKEN = 1
const CJK = 2

/** The separator ranges decoded: [start0, end0, start1, end1, ...], ascending. */
const separatorRanges: number[] = (() => {
  const out: number[] = []
  const parts = SEPARATOR_RANGES.split(',')
  let prev = -1
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const start = prev + 1 + Number.parseInt(parts[i] as string, 36)
    const end = start + Number.parseInt(parts[i + 1] as string, 36)
    out.push(start, end)
    prev = end
  }
  return out
})()

/** Han (incl. extensions, compatibility ideographs, 々 〆 〇), Hiragana, Katakana (incl. ー and the
 * halfwidth forms), Hangul (syllables and jamo, incl. halfwidth) — by Script_Extensions. */
const CJK_SCRIPT = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u

function isSeparatorBySearch(cp: number): boolean {
  const r = separatorRanges
  let lo = 0
  let hi = r.length / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (cp < (r[mid * 2] as number)) hi = mid - 1
    else if (cp > (r[mid * 2 + 1] as number)) lo = mid + 1
    else return true
  }
  return false
}

let bmp: Uint8Array | undefined

/** SEP / TOKEN / CJK for every BMP code unit, built on first use (~5 ms). Surrogates count as separators:
 * drivers encode a lone surrogate as U+FFFD, a separator. */
function bmpTable(): Uint8Array {
  if (bmp) return bmp
  const t = new Uint8Array(0x10000).fill(TOKEN)
  const r = separatorRanges
  for (let i = 0; i < r.length; i += 2) {
    const start = r[i] as number
    if (start > 0xffff) break
    t.fill(SEP, start, Math.min(r[i + 1] as number, 0xffff) + 1)
  }
  t.fill(SEP, 0xd800, 0xe000)
  for (let c = 0x1100; c < 0x10000; c++) {
    if (t[c] === TOKEN && CJK_SCRIPT.test(String.fromCharCode(c))) t[c] = CJK
  }
  bmp = t
  return t
}

const astralCache = new Map<number, number>()

function astralClass(cp: number): number {
  let k = astralCache.get(cp)
  if (k === undefined) {
    k = isSeparatorBySearch(cp) ? SEP : CJK_SCRIPT.test(String.fromCodePoint(cp)) ? CJK : TOKEN
    if (astralCache.size < 4096) astralCache.set(cp, k)
  }
  return k
}

/** 0 = separator, 1 = token character, 2 = CJK token character — as unicode61 sees the code point. */
export function charClass(cp: number): 0 | 1 | 2 {
  if (cp < 0x10000) return (bmpTable()[cp] ?? SEP) as 0 | 1 | 2
  if (cp > 0x10ffff) return SEP
  return astralClass(cp) as 0 | 1 | 2
}

/** A cheap pre-filter: any code unit of the Hangul / CJK / kana blocks or a surrogate pair. */
const MAYBE_CJK =
  /[\u1100-\u11ff\u2e80-\u2fdf\u3005-\u303b\u3040-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe45\ufe46\uff66-\uffdc\ud800-\udbff]/

/** Does the text contain a CJK character (Han, kana or Hangul)? */
export function hasCjk(text: string): boolean {
  if (!MAYBE_CJK.test(text)) return false
  const t = bmpTable()
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        if (astralClass(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000) === CJK) return true
        i++
        continue
      }
    }
    if (t[c] === CJK) return true
  }
  return false
}

/**
 * Inserts `mark` between every CJK character and an adjacent token character (CJK or not). Returns null
 * when nothing had to be inserted. Never throws: lone surrogates are separators. (The query parser's split
 * of a term into characters; the index itself reads CJK as pairs: toIndexText.)
 */
export function splitCjk(text: string, mark: string): string | null {
  return markCjk(text, mark, false)
}

/**
 * One pass over `text` inserting `mark` where a CJK character touches another token character. With
 * `bigrams`, a CJK character that follows another is also written again after the mark (数据迁移 →
 * 数据·据迁·迁移·移): each character of a run starts a token of two, the last one a token of its own.
 */
function markCjk(text: string, mark: string, bigrams: boolean): string | null {
  if (typeof text !== 'string' || !MAYBE_CJK.test(text)) return null
  const t = bmpTable()
  let out: string | null = null
  let last = 0
  let prev = SEP
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    let k: number
    let w = 1
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        k = astralClass(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000)
        w = 2
      } else k = SEP
    } else k = t[c] as number
    if (bigrams && prev === CJK && k === CJK) {
      // the previous character, this one, the mark; the next token starts with this character again
      out = (out ?? '') + text.slice(last, i + w) + mark
      last = i
    } else if (prev !== SEP && k !== SEP && (prev === CJK || k === CJK)) {
      out = (out ?? '') + text.slice(last, i) + mark
      last = i
    }
    prev = k
    i += w - 1
  }
  return out === null ? null : out + text.slice(last)
}

/**
 * The text to put in the FTS index: every run of CJK characters becomes its overlapping pairs, each a
 * unicode61 token of its own, and its last character (数据迁移 → 数据 据迁 迁移 移, U+200B between them; a
 * run of one character stays one token). A query's CJK run is then matched as a phrase of its pairs
 * (indexPhrase), which FTS5 and PostgreSQL answer from short position lists instead of intersecting those
 * of single, common characters. The index holds as many tokens as with one token per character. `null`
 * when that is the text itself, so the store need not keep a copy for text without CJK.
 */
export function toIndexText(text: string): string | null {
  return markCjk(text, INDEX_MARK, true)
}

/**
 * A row's search text when it differs from its text: toIndexText's, with every NUL (a binary tool result)
 * as a space, so that the words around it are indexed and snippeted alike on every engine (PostgreSQL's
 * text cannot hold NUL: dialects/postgres/text-codec.ts). `null` when that is the text itself.
 */
export function toSearchText(text: string): string | null {
  const split = toIndexText(text)
  const out = split ?? text
  return out.includes('\0') ? out.replaceAll('\0', ' ') : split
}

/**
 * The text `toIndexText` was made from, from an index text (e.g. an excerpt or snippet of a row's search
 * text): every U+200B mark removed, and the character a pair repeats after one (数据·据迁 → 数据迁). A mark
 * the text itself held is removed too, and so is a CJK character that repeats the one before it across it.
 */
export function stripIndexMarks(snippet: string): string {
  if (typeof snippet !== 'string' || !snippet.includes(INDEX_MARK)) return snippet
  let out = ''
  let last = 0
  for (let i = snippet.indexOf(INDEX_MARK); i >= 0; i = snippet.indexOf(INDEX_MARK, last)) {
    out += snippet.slice(last, i)
    last = i + 1
    const after = snippet.codePointAt(i + 1)
    if (after === undefined || charClass(after) !== CJK) continue
    const low = snippet.charCodeAt(i - 1)
    const before =
      low >= 0xdc00 && low <= 0xdfff && i >= 2 ? snippet.codePointAt(i - 2) : snippet.codePointAt(i - 1)
    if (before === after) last += after > 0xffff ? 2 : 1
  }
  return out + snippet.slice(last)
}
