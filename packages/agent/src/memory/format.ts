/**
 * The file format of MEMORY.md and USER.md: UTF-8 text whose entries are separated by a line holding only
 * `§` (Hermes' delimiter). Entries are trimmed; blank entries are dropped. Sizes are counted in grapheme
 * clusters, the characters a user sees: `é`, `中`, `👍🏽` and `👨‍👩‍👧` are one each.
 */

/** The delimiter line between two entries. */
export const ENTRY_DELIMITER = '§'
const JOINER = `\n${ENTRY_DELIMITER}\n`

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/**
 * Characters that always stand alone: ASCII, Latin-1 and Latin Extended letters, Chinese characters and
 * CJK punctuation. Between two of them there is always a grapheme boundary, and each is one grapheme.
 */
const SIMPLE_CLASS =
  '\\n\\t\\x20-\\x7e\\xa0-\\xa8\\xaa-\\xad\\xaf-\\u02ff\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uff01-\\uff60'
const COMPLEX_RUN = new RegExp(`[^${SIMPLE_CLASS}]+`, 'g')
/** Parts that extend the cluster before them (marks, joiners, variation selectors, skin tones, tags). */
const EXTENDS =
  /^(?:\p{M}|\u200c|\u200d|[\ufe00-\ufe0f]|[\u{1f3fb}-\u{1f3ff}]|[\u{e0020}-\u{e007f}]|[\u{e0100}-\u{e01ef}])/u

const PICTOGRAPH = /^\p{Extended_Pictographic}/u
/** Extenders other than the joiner: what may stand between a pictograph and the joiner that continues it. */
const NON_JOINER_EXTENDS =
  '(?:\\p{M}|\\u200c|[\\ufe00-\\ufe0f]|[\\u{1f3fb}-\\u{1f3ff}]|[\\u{e0020}-\\u{e007f}]|[\\u{e0100}-\\u{e01ef}])*'
const PICTOGRAPH_RUN_END = new RegExp(`\\p{Extended_Pictographic}${NON_JOINER_EXTENDS}$`, 'u')
const JOINED_END = new RegExp(`\\p{Extended_Pictographic}${NON_JOINER_EXTENDS}\\u200d$`, 'u')

/** Segments per call: Node 20's ICU segmenter is quadratic in the length of the text it is given. */
const SEGMENT_WINDOW = 1_024

export interface CountOptions {
  /** Work done, in characters handed to the segmenter and calls to it (benchmarks and tests read it). */
  meter?: { chars: number; calls: number }
  /** Characters per segmenter call (tests use small windows to cross many window edges). */
  window?: number
  /** Stop counting once the count is above this: the caller only needs to know that it is too long. */
  max?: number
}

/**
 * Characters as the user sees them (grapheme clusters). Linear in the text's length: simple characters
 * (see SIMPLE_CLASS) count one each without the segmenter; only the stretches around other characters
 * (with one simple neighbour on each side, where a boundary is certain) are segmented, in windows.
 * With `max`, the work stops once the count passes it, so an oversized text is refused without reading it all.
 */
export function countChars(text: string, options: CountOptions = {}): number {
  const max = options.max ?? Number.POSITIVE_INFINITY
  let count = 0
  let done = 0
  let pending: [number, number] | null = null
  const flush = ([start, end]: [number, number]) => {
    const from = Math.max(done, start - 1)
    const to = Math.min(text.length, end + 1)
    count += from - done
    if (count <= max) count += segmentCount(text.slice(from, to), options, max - count)
    done = to
  }
  for (const match of text.matchAll(COMPLEX_RUN)) {
    const start = match.index
    const end = start + match[0].length
    // Stretches two characters apart or closer are segmented together: each side needs its own neighbour.
    if (pending && start - pending[1] <= 2) pending[1] = end
    else {
      if (pending) flush(pending)
      if (count > max) return count
      pending = [start, end]
    }
  }
  if (pending) flush(pending)
  return count + (text.length - done)
}

/**
 * Graphemes of `text` segmented in windows of `window` characters, each starting at a boundary found by
 * the window before (a break decided inside a window only depends on the text from its start, which is a
 * true boundary, and on the next character, which the window holds).
 */
function segmentCount(text: string, options: CountOptions, max: number): number {
  const { meter, window = SEGMENT_WINDOW } = options
  let count = 0
  let start = 0
  while (start < text.length && count <= max) {
    // Never cut between the two halves of a surrogate pair: a break is decided on whole code points.
    let cut = start + window
    if (/[\ud800-\udbff]/.test(text.charAt(cut - 1))) cut++
    const slice = text.slice(start, cut)
    if (meter) {
      meter.chars += slice.length
      meter.calls++
    }
    if (start + slice.length >= text.length) {
      for (const _ of segmenter.segment(slice)) count++
      break
    }
    // Every segment but the last is complete; the last may go on past the window.
    let last = 0
    let segments = 0
    for (const { index } of segmenter.segment(slice)) {
      last = index
      segments++
    }
    if (segments > 1) {
      count += segments - 1
      start += last
      continue
    }
    // One cluster longer than the window (a letter with a run of marks, a long emoji sequence): count it
    // once and skip its parts: marks and joiners, and a pictograph after a joiner.
    count++
    let end = start + slice.length
    // A joiner pulls in a pictograph only right after a pictograph and its extenders (GB11:
    // ExtPict Extend* ZWJ × ExtPict); `pictograph` says the cluster so far ends in such a run.
    let pictograph = PICTOGRAPH_RUN_END.test(slice)
    let joined = JOINED_END.test(slice)
    // Nothing extends a line break.
    while (end < text.length && !/[\r\n]$/.test(slice)) {
      const next = text.slice(end, end + 2)
      const pulled = joined ? PICTOGRAPH.exec(next) : null
      const part = pulled ?? EXTENDS.exec(next)
      if (!part) break
      const zwj = part[0] === '\u200d'
      joined = zwj && pictograph
      pictograph = pulled !== null || (pictograph && !zwj)
      end += part[0].length
    }
    start = end
  }
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
