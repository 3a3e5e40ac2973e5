/**
 * SQLite's query text: FTS5 MATCH expressions built from the parsed terms (search/query.ts, which are data
 * of every engine; PostgreSQL builds its tsquery from the same terms in dialects/postgres/search.ts).
 */
import { indexPhrase } from '../../search/index-phrase.ts'
import { type ParseOptions, parseSearchQuery, type SearchTerm } from '../../search/query.ts'
import type { TermTier } from '../../search/tiers.ts'

/** A term as FTS5: its phrase in the index's tokens (index-phrase.ts) as a double-quoted string (so no character of it is an operator), ` *` after a prefix. */
export const ftsTerm = (term: SearchTerm): string => {
  const { phrase, prefix } = indexPhrase(term)
  return `"${phrase.replaceAll('"', '""')}"${prefix ? ' *' : ''}`
}

/** The FTS5 MATCH expression of a tier: its terms joined by its operator. */
export const ftsMatch = ({ terms, operator }: TermTier): string => terms.map(ftsTerm).join(` ${operator} `)

export interface MatchQueryOptions extends ParseOptions {
  /** 'any' (default): all terms OR-ed, ranked by BM25. 'all': primary terms AND-ed. */
  mode?: 'any' | 'all'
}

/**
 * Turns any user text into a safe FTS5 MATCH expression, or null when nothing is searchable (empty,
 * whitespace, only punctuation/operators) — the store then returns [].
 */
export function toMatchQuery(userText: string, options: MatchQueryOptions = {}): string | null {
  const terms = parseSearchQuery(userText, options)
  if (terms.length === 0) return null
  if (options.mode === 'all') {
    const primary = terms.filter((t) => t.primary)
    return ftsMatch({ terms: primary.length > 0 ? primary : terms, operator: 'AND' })
  }
  return ftsMatch({ terms, operator: 'OR' })
}
