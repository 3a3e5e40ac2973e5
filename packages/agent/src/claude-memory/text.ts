import { MemoryToolError } from './paths.ts'

/**
 * The text commands of Claude's memory tool on a file's content, pure: what `view`, `str_replace` and
 * `insert` do and answer, with the messages of the SDK's filesystem implementation
 * (`BetaLocalFilesystemMemoryTool`), so the model reads the same results from either.
 */

const LINE_NUMBER_WIDTH = 6

const numbered = (lines: readonly string[], first: number) =>
  lines.map((line, i) => `${String(i + first).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`).join('\n')

/**
 * `view` of a file: its lines numbered from 1, or lines `start` to `end` of `viewRange` (`end` -1: to the
 * last line). A range must be two whole numbers with 1 <= start <= line count and end -1 or start <= end.
 */
export function viewText(path: string, content: string, viewRange?: readonly unknown[]): string {
  const lines = content.split('\n')
  let first = 1
  let shown = lines
  if (viewRange !== undefined && viewRange !== null) {
    const [start, end] = viewRange
    const valid =
      Array.isArray(viewRange) &&
      viewRange.length === 2 &&
      Number.isInteger(start) &&
      Number.isInteger(end) &&
      (start as number) >= 1 &&
      (start as number) <= lines.length &&
      (end === -1 || (end as number) >= (start as number))
    if (!valid) {
      throw new MemoryToolError(
        `Invalid \`view_range\` parameter: ${JSON.stringify(viewRange)}. It should be [start, end] with 1 <= start <= ${lines.length} (the file's line count) and end -1 (to the last line) or at least start.`,
      )
    }
    first = start as number
    shown = lines.slice(first - 1, end === -1 ? lines.length : (end as number))
  }
  return `Here's the content of ${path} with line numbers:\n${numbered(shown, first)}`
}

/** 1-based line numbers where each occurrence of `needle` in `content` starts (overlapping ones too). */
function occurrenceLines(content: string, needle: string): number[] {
  const lines: number[] = []
  let line = 1
  let counted = 0
  for (let at = content.indexOf(needle); at !== -1; at = content.indexOf(needle, at + 1)) {
    for (; counted < at; counted++) if (content.charCodeAt(counted) === 10) line++
    lines.push(line)
  }
  return lines
}

/**
 * `str_replace`: replaces the one occurrence of `oldStr` (which may span lines) with `newStr`; refused
 * when it is empty, missing, or occurs more than once (the message names the line of every occurrence).
 * Returns the new content and the answer with a snippet of the edited lines.
 */
export function replaceText(
  path: string,
  content: string,
  oldStr: unknown,
  newStr: unknown,
): { content: string; answer: string } {
  if (typeof oldStr !== 'string' || oldStr === '') {
    throw new MemoryToolError('No replacement was performed: old_str must be a non-empty string.')
  }
  if (typeof newStr !== 'string') {
    throw new MemoryToolError('No replacement was performed: new_str must be a string (it may be empty).')
  }
  const lines = occurrenceLines(content, oldStr)
  if (lines.length === 0) {
    throw new MemoryToolError(
      `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
      'not_found',
    )
  }
  if (lines.length > 1) {
    throw new MemoryToolError(
      `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(', ')}. Please ensure it is unique`,
      'ambiguous',
    )
  }
  const next = content.replace(oldStr, () => newStr)
  const changed = (lines[0] as number) - 1
  const newLines = next.split('\n')
  const start = Math.max(0, changed - 2)
  const end = Math.min(newLines.length, changed + 3 + newStr.split('\n').length - 1)
  return {
    content: next,
    answer: `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${numbered(newLines.slice(start, end), start + 1)}`,
  }
}

/**
 * `insert`: puts `text` (without one final newline) after line `line` (0: at the top; the line count: at
 * the end). Refused when `line` is not a whole number in [0, line count].
 */
export function insertText(content: string, line: unknown, text: unknown): string {
  const lines = content.split('\n')
  if (typeof text !== 'string') throw new MemoryToolError('insert_text must be a string.')
  if (!Number.isInteger(line) || (line as number) < 0 || (line as number) > lines.length) {
    throw new MemoryToolError(
      `Invalid \`insert_line\` parameter: ${JSON.stringify(line)}. It should be within the range of lines of the file: [0, ${lines.length}]`,
    )
  }
  lines.splice(line as number, 0, text.replace(/\n$/, ''))
  return lines.join('\n')
}

/** The answer to a successful insert. */
export const insertedAnswer = (path: string) => `The file ${path} has been edited.`

/** A size as the SDK's listing shows it: `0B`, `512B`, `1.5K`, `2M`. */
export function formatSize(bytes: number): string {
  if (bytes === 0) return '0B'
  const units = ['B', 'K', 'M', 'G']
  const i = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)))
  const size = bytes / 1024 ** i
  return `${size % 1 === 0 ? size : size.toFixed(1)}${units[i]}`
}
