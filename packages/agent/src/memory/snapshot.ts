import { joinEntries } from './format.ts'
import { formatCount, percent } from './operations.ts'

/** How a block's usage header line starts (`══ MEMORY [62% — 1,364/2,200 chars] ══`). */
export const BLOCK_HEADER_START = '══ '

/** The body of a block whose file has no entries. */
export const EMPTY_BLOCK = '(empty)'

/** The usage header of a block: `══ MEMORY [62% — 1,364/2,200 chars] ══`. */
function usageHeader(label: string, chars: number, limit: number): string {
  return `${BLOCK_HEADER_START}${label} [${percent(chars, limit)} — ${formatCount(chars)}/${formatCount(limit)} chars] ══`
}

/** One file's block for the system prompt: the header, then the entries separated by the delimiter line. */
export function renderBlock(label: string, entries: readonly string[], chars: number, limit: number): string {
  const body = entries.length > 0 ? joinEntries(entries) : EMPTY_BLOCK
  return `${usageHeader(label, chars, limit)}\n${body}`
}
