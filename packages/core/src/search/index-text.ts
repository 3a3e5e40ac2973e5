import type { ToolCall } from '../types.ts'
import { toSearchText } from './cjk.ts'

/**
 * What the full-text index sees for a message when it differs from its text: CJK runs as their pairs of
 * characters (cjk.ts), tool-call names and arguments added. Null when the text itself is indexed.
 * (Tool results are not given their tool's name: that would store a second copy of every output.)
 */
export function messageSearchText(text: string | null, calls: readonly ToolCall[]): string | null {
  const indexed = [
    text ?? '',
    ...calls.map((call) => `${call?.function?.name ?? ''} ${call?.function?.arguments ?? ''}`),
  ]
    .filter(Boolean)
    .join('\n')
  return toSearchText(indexed) ?? (indexed === (text ?? '') ? null : indexed)
}

/**
 * The tool calls a stored row's `tool_calls` column gives the index: none when it is NULL or not a JSON
 * array (text another tool wrote; SQLite's count triggers accept any JSON), so such a row is indexed by its
 * content alone. The one reading for the rebuild and the integrity check, which must agree.
 */
export function indexedToolCalls(json: string | null): readonly ToolCall[] {
  if (json === null) return []
  try {
    const parsed: unknown = JSON.parse(json)
    return Array.isArray(parsed) ? (parsed as ToolCall[]) : []
  } catch {
    return []
  }
}

/**
 * Whether a message's text or its tool calls' JSON holds a NUL (JSON.stringify writes it as \u0000): the
 * SQLite index keeps such a row's index text as a copy (dialects/sqlite/maintenance.ts).
 */
export const holdsNul = (text: string | null, toolCallsJson: string | null): boolean =>
  (text?.includes('\0') ?? false) || (toolCallsJson?.includes('\\u0000') ?? false)
