import { MemoryRefusal, type MemoryRefusalReason } from '../memory/operations.ts'

/**
 * Paths of Claude's memory tool: every path the model sends is checked and normalised here before any
 * handler touches storage. A path is `/memories` or `/memories/<name>/…/<name>`; anything that could name
 * a place outside it, or name one place two ways, is refused with a message that says what to send instead.
 */

/** The virtual root the memory tool works under. */
export const MEMORIES_ROOT = '/memories'

/** The longest path, the deepest nesting and the longest name accepted. */
const MAX_PATH_LENGTH = 1_024
const MAX_DEPTH = 16
const MAX_NAME_LENGTH = 255

/** A checked path: `/memories` itself (no segments) or a file or folder under it. */
export interface MemoryPath {
  /** The normalised path: `/memories/notes/todo.md`, without a trailing slash. */
  path: string
  /** Its names under /memories: `['notes', 'todo.md']`; empty for the root. */
  segments: string[]
}

// C0/C1 controls (NUL included), Unicode format characters (bidi overrides, zero-width joiners) and
// slashes that only look like one: they could hide or fake a separator.
const HIDDEN_OR_LOOKALIKE = /[\p{Cc}\p{Cf}\u2044\u2215\u29f8\uff0f\uff3c\u2216\ufe68\ufe6b]/u
const ENCODED = /%[0-9a-f]{2}/i

/** The memory tool's refusal of a path or an edit; the message is the tool result the model reads. */
export class MemoryToolError extends MemoryRefusal {
  constructor(message: string, reason: MemoryRefusalReason = 'invalid') {
    super(reason, message)
  }
}

const refuse = (path: string, why: string): never => {
  throw new MemoryToolError(
    `The path ${JSON.stringify(path)} was refused: ${why}. Send a path under /memories such as /memories/notes.md.`,
  )
}

/**
 * Checks and normalises `raw`: it must be a string under /memories, of plain names separated by `/`
 * (repeated and trailing slashes and `.` names are dropped). Refused: `..`, anything outside /memories,
 * backslashes, percent-encoded characters, control and invisible characters (NUL included), look-alike
 * slashes, `~` names, `->` (a symbolic link as `ls` shows one) and drive letters. Throws {@link MemoryToolError}.
 */
export function memoryPath(raw: unknown): MemoryPath {
  if (typeof raw !== 'string') refuse(String(raw), 'a path must be a string')
  const path = raw as string
  if (path.length > MAX_PATH_LENGTH)
    refuse(path.slice(0, 80), `it is longer than ${MAX_PATH_LENGTH} characters`)
  if (HIDDEN_OR_LOOKALIKE.test(path))
    refuse(path, 'it holds a control, invisible or look-alike slash character')
  if (path.includes('\\')) refuse(path, 'it holds a backslash; separate names with /')
  if (ENCODED.test(path)) refuse(path, 'it holds a percent-encoded character; send the characters themselves')
  if (path !== MEMORIES_ROOT && !path.startsWith(`${MEMORIES_ROOT}/`))
    refuse(path, 'it is not under /memories')
  const segments = path
    .slice(MEMORIES_ROOT.length)
    .split('/')
    .filter((name) => name !== '' && name !== '.')
  for (const name of segments) {
    if (name === '..') refuse(path, '".." would leave the folder it names')
    if (name.includes('->')) refuse(path, `the name ${JSON.stringify(name)} looks like a symbolic link (->)`)
    if (name.trim() !== name || name.length > MAX_NAME_LENGTH) {
      refuse(path, `the name ${JSON.stringify(name.slice(0, 80))} starts or ends with a space or is too long`)
    }
    if (name.startsWith('~')) refuse(path, `the name ${JSON.stringify(name)} starts with ~, a home folder`)
    if (/^[a-z]:/i.test(name)) refuse(path, `the name ${JSON.stringify(name)} looks like a drive letter`)
  }
  if (segments.length > MAX_DEPTH) refuse(path, `it is nested deeper than ${MAX_DEPTH} folders`)
  return { path: [MEMORIES_ROOT, ...segments].join('/'), segments }
}

/** `path` is `folder` or lies under it (both normalised). */
export const isWithin = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`)
