/**
 * A search term as the index's tokens (see toIndexText in cjk.ts): words as they are, each CJK run as its
 * overlapping pairs. Both dialects build their query text from it (FTS5 MATCH on SQLite, a tsquery on
 * PostgreSQL), so a term matches the same rows on both.
 */
import { charClass } from './cjk.ts'
import type { SearchTerm } from './query.ts'

/** The term's tokens, space-separated, and whether its last token is a prefix. */
export interface IndexPhrase {
  phrase: string
  prefix: boolean
}

/**
 * The phrase of a term's text in the index's tokens. A run of CJK characters becomes its pairs (数据迁移 →
 * 数据 据迁 迁移); when another token follows it in the term, also its last character, which the index
 * writes after a run's pairs (数据API → 数据 据 api). A run of one character at the term's end is a prefix
 * (工 → 工*: the pairs it starts, and the character at a run's end); elsewhere it is its own token, as the
 * index writes a run of one. Characters apart in the term (a space, a hyphen) are apart in the phrase.
 */
export function indexPhrase(term: SearchTerm): IndexPhrase {
  if (!term.cjk) return { phrase: term.phrase, prefix: term.prefix }
  const pieces: { cjk: boolean; chars: string[] }[] = []
  let apart = true
  for (const ch of term.text) {
    const k = charClass(ch.codePointAt(0) as number)
    if (k === 0) {
      apart = true
      continue
    }
    const last = pieces.at(-1)
    if (!apart && last !== undefined && last.cjk === (k === 2)) last.chars.push(ch)
    else pieces.push({ cjk: k === 2, chars: [ch] })
    apart = false
  }
  const tokens: string[] = []
  let prefix = term.prefix
  for (const [i, { cjk, chars }] of pieces.entries()) {
    const followed = i < pieces.length - 1
    if (!cjk) tokens.push(chars.join(''))
    else if (chars.length === 1) {
      tokens.push(chars[0] as string)
      if (!followed) prefix = true
    } else {
      for (let j = 0; j + 1 < chars.length; j++) tokens.push(`${chars[j]}${chars[j + 1]}`)
      if (followed) tokens.push(chars.at(-1) as string)
    }
  }
  return { phrase: tokens.join(' '), prefix }
}
