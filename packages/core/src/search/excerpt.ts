/** How much of a hit's indexed text a search reads (the dialects' hit queries) and snippets (snippet.ts). */

/** How much of a long row an excerpt snippet looks at (characters): the cost per hit stays bounded. */
export const EXCERPT_CHARS = 16_384

/**
 * The characters of a row a search reads first: the snippet of nearly every hit lies in them, so the rows
 * of long tool results are not read, decoded and scanned up to EXCERPT_CHARS (see sliceSnippet).
 */
export const SLICE_CHARS = 2048
