/**
 * The file format of MEMORY.md and USER.md: UTF-8 text whose entries are separated by a line holding only
 * `§` (Hermes' delimiter). Entries are trimmed; blank entries are dropped. Sizes are counted in grapheme
 * clusters, the characters a user sees: `é`, `中`, `👍🏽` and `👨‍👩‍👧` are one each.
 */

/** The delimiter line between two entries. */
export const ENTRY_DELIMITER = '§'
const JOINER = `\n${ENTRY_DELIMITER}\n`

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** Characters as the user sees them (grapheme clusters). Linear in the text's length. */
export function countChars(text: string): number {
  let count = 0
  for (const _ of segmenter.segment(text)) count++
  return count
}

export type ParsedEntries = { ok: true; entries: string[] } | { ok: false; reason: string }

// Controls other than tab, newline and carriage return mean a binary or corrupted file.
const isControl = (code: number) =>
  (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f

function hasControl(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (isControl(line.charCodeAt(i))) return true
  return false
}
const CONFLICT_MARKER = /^(?:<{7}|={7}|>{7})(?:\s|$)/
const decoder = new TextDecoder('utf-8', { fatal: true })

/**
 * Decodes and splits a memory file. It does not parse when it is not UTF-8, holds control characters, or
 * holds version-control conflict markers: such a file was damaged or is mid-edit, and rewriting it could
 * lose what the user meant.
 */
export function parseEntries(bytes: Uint8Array): ParsedEntries {
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch {
    return { ok: false, reason: 'the file is not valid UTF-8 text' }
  }
  return parseText(text)
}

/** {@link parseEntries} on text that is already decoded. */
export function parseText(text: string): ParsedEntries {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const entries: string[] = []
  let current: string[] = []
  const lines = text.split(/\r?\n/)
  for (const [index, line] of lines.entries()) {
    if (hasControl(line)) return { ok: false, reason: `line ${index + 1} holds a control character` }
    if (CONFLICT_MARKER.test(line)) {
      return { ok: false, reason: `line ${index + 1} is a merge conflict marker (${line.slice(0, 7)})` }
    }
    if (line.trim() === ENTRY_DELIMITER) {
      pushEntry(entries, current)
      current = []
    } else current.push(line)
  }
  pushEntry(entries, current)
  return { ok: true, entries }
}

function pushEntry(entries: string[], lines: string[]): void {
  const entry = lines.join('\n').trim()
  if (entry !== '') entries.push(entry)
}

/** The entries as the file stores them and the model reads them; `countChars` of this is the usage. */
export function joinEntries(entries: readonly string[]): string {
  return entries.join(JOINER)
}

/** The file's bytes: the joined entries and a final newline (none for an empty file). */
export function serializeEntries(entries: readonly string[]): string {
  return entries.length === 0 ? '' : `${joinEntries(entries)}\n`
}

/** Why `content` cannot be stored as one entry, or null when it can. */
export function entryProblem(content: string): string | null {
  const parsed = parseText(content)
  if (!parsed.ok) return parsed.reason.replace(/^line/, 'its line')
  if (parsed.entries.length === 0) return 'it is empty'
  if (parsed.entries.length > 1) {
    return `it holds a line with only "${ENTRY_DELIMITER}", the delimiter between entries; add them one by one`
  }
  return null
}
