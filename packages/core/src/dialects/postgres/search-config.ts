/**
 * How PostgreSQL's search reads text, shared by the schema's search vectors (schema/columns.ts) and the
 * queries (search.ts). A file of its own without drizzle-orm/pg-core, so a store that searches never loads
 * the PostgreSQL schema builders (37 modules of drizzle-orm, each costing Node 24 a parse of drizzle-orm's
 * 180 KB package.json when it resolves them).
 */

/**
 * The text search configuration of the vectors and the queries, made by migration 0004 in the store's
 * schema: `simple` with its words stemmed by the Snowball English stemmer (as FTS5's porter tokenizer
 * stems them on SQLite) and no stop-words, so a one- or two-character word (a, 我, 数据) is a lexeme of its
 * own; the stemmer leaves words of two letters or fewer, and every CJK word, as they are.
 */
export const SEARCH_CONFIG = 'engram_search'

/**
 * The text PostgreSQL's parser reads, a row's and a query term's alike: the CJK split's U+200B marks and
 * `/` become spaces. Whether the parser reads U+200B as a separator depends on the server's C library
 * (glibc does, PGlite's does not); a path (`src/parser.ts`) it would keep as one `file` token, which a
 * query for part of it cannot match (FTS5 splits it into words).
 */
export const parserText = (expr: string) => `translate(${expr}, chr(8203) || '/', '  ')`
