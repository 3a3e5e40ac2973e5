import { joinEntries } from './format.ts'
import { formatCount, percent } from './operations.ts'

/** The usage header of a block: `══ MEMORY [62% — 1,364/2,200 chars] ══`. */
function usageHeader(label: string, chars: number, limit: number): string {
  return `══ ${label} [${percent(chars, limit)} — ${formatCount(chars)}/${formatCount(limit)} chars] ══`
}

/** One file's block for the system prompt: the header, then the entries separated by the delimiter line. */
export function renderBlock(label: string, entries: readonly string[], chars: number, limit: number): string {
  const body = entries.length > 0 ? joinEntries(entries) : '(empty)'
  return `${usageHeader(label, chars, limit)}\n${body}`
}
