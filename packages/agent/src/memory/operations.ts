import { EngramError } from '@engram/core'
import { countChars, entryProblem, joinEntries, parseText } from './format.ts'

export type MemoryTarget = 'memory' | 'user'

export type MemoryOperation =
  | { action: 'add'; content: string }
  | { action: 'replace'; old_text: string; content: string }
  | { action: 'remove'; old_text: string }

/** Why the memory refused a write; the message says what to do instead. */
export type MemoryRefusalReason =
  | 'invalid'
  | 'not_found'
  | 'ambiguous'
  | 'over_cap'
  | 'entry_too_long'
  | 'threat'
  | 'unparseable'
  | 'locked'

/** A refused memory write. Nothing was written. */
export class MemoryRefusal extends EngramError {
  readonly reason: MemoryRefusalReason

  constructor(reason: MemoryRefusalReason, message: string) {
    super('INVALID_ARGUMENT', message)
    this.reason = reason
  }
}

/** The outcome of a batch on a list of entries. */
export interface AppliedBatch {
  entries: string[]
  chars: number
  /** How many operations did what; `unchanged` counts adds of an entry that was already there. */
  changes: Record<'added' | 'replaced' | 'removed' | 'unchanged', number>
}

/**
 * A refusal's text about operation `index` of a batch of `count`: "Operation 2: …" in a batch, the text
 * alone (capitalised) when there is one operation, where a number would only puzzle the reader.
 */
function aboutOperation(index: number, count: number, text: string): string {
  return count > 1 ? `Operation ${index + 1}: ${text}` : `${text.charAt(0).toUpperCase()}${text.slice(1)}`
}

const preview = (entry: string, max = 80) => {
  const flat = entry.slice(0, max * 4).replace(/\s+/g, ' ')
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat)
}

// A UTF-16 surrogate without its pair: not a character, and UTF-8 would store it as U+FFFD.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function normalizedContent(content: unknown, index: number, count: number): string {
  if (typeof content !== 'string') {
    throw new MemoryRefusal(
      'invalid',
      aboutOperation(index, count, "content must be a string with the entry's text."),
    )
  }
  const lone = LONE_SURROGATE.exec(content)
  if (lone) {
    const code = (lone[0].charCodeAt(0) as number).toString(16).toUpperCase()
    throw new MemoryRefusal(
      'invalid',
      aboutOperation(
        index,
        count,
        `the content holds a lone UTF-16 surrogate (U+${code}) at position ${lone.index}, which is not a character and cannot be stored as UTF-8. Send the text with the character it was part of, or without it.`,
      ),
    )
  }
  const problem = entryProblem(content)
  if (problem)
    throw new MemoryRefusal(
      'invalid',
      aboutOperation(index, count, `the content cannot be stored because ${problem}.`),
    )
  const parsed = parseText(content)
  return parsed.ok ? (parsed.entries[0] as string) : content
}

function findUnique(
  entries: readonly string[],
  oldText: unknown,
  [index, count]: [number, number],
  file: string,
): number {
  if (typeof oldText !== 'string' || oldText.trim() === '') {
    throw new MemoryRefusal(
      'invalid',
      aboutOperation(index, count, 'old_text must be a non-empty part of the entry to change.'),
    )
  }
  const needle = oldText.trim()
  const matches = entries.flatMap((entry, i) => (entry.includes(needle) ? [i] : []))
  if (matches.length === 1) return matches[0] as number
  if (matches.length === 0) {
    throw new MemoryRefusal(
      'not_found',
      aboutOperation(
        index,
        count,
        `no entry in ${file} contains ${preview(needle)}. Read the current entries and quote part of one exactly.`,
      ),
    )
  }
  const listed = matches.map((i) => `  - ${preview(entries[i] as string)}`).join('\n')
  throw new MemoryRefusal(
    'ambiguous',
    aboutOperation(
      index,
      count,
      `${preview(needle)} matches ${matches.length} entries in ${file}; quote a longer part of the one you mean:\n${listed}`,
    ),
  )
}

/**
 * Applies a batch of operations to `entries`, in order, and checks the size after the whole batch: the
 * batch is refused when it ends above `limit`, unless it shrinks a file that was already above (so a file
 * edited past the cap by hand can still be consolidated). Adding an entry that is already there changes
 * nothing. Pure; throws {@link MemoryRefusal} and leaves `entries` untouched.
 */
export function applyOperations(
  entries: readonly string[],
  operations: readonly MemoryOperation[],
  limit: number,
  file: string,
): AppliedBatch {
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new MemoryRefusal('invalid', 'Give at least one operation (add, replace or remove).')
  }
  const next = [...entries]
  const changes = { added: 0, replaced: 0, removed: 0, unchanged: 0 }
  const count = operations.length
  /** Which operation wrote each new entry: named when one alone is longer than the whole file may be. */
  const writtenBy = new Map<string, number>()
  const contentOf = (content: unknown, index: number) => {
    const entry = normalizedContent(content, index, count)
    writtenBy.set(entry, index)
    return entry
  }
  for (const [index, operation] of operations.entries()) {
    const action = (operation as { action?: unknown })?.action
    if (action === 'add') {
      const content = contentOf(operation.content, index)
      if (next.includes(content)) changes.unchanged++
      else {
        next.push(content)
        changes.added++
      }
    } else if (action === 'replace' || action === 'remove') {
      const at = findUnique(next, operation.old_text, [index, count], file)
      if (operation.action === 'replace') {
        const content = contentOf(operation.content, index)
        if (next.some((entry, i) => entry === content && i !== at)) next.splice(at, 1)
        else next[at] = content
        changes.replaced++
      } else {
        next.splice(at, 1)
        changes.removed++
      }
    } else {
      throw new MemoryRefusal(
        'invalid',
        aboutOperation(
          index,
          count,
          `action must be "add", "replace" or "remove" (got ${JSON.stringify(action)}).`,
        ),
      )
    }
  }
  const written = (entry: string) => {
    const index = writtenBy.get(entry)
    return index === undefined ? undefined : (text: string) => aboutOperation(index, count, text)
  }
  return { entries: next, chars: checkCap(entries, next, limit, file, written), changes }
}

/**
 * The size of `next` in characters, after checking it against `limit`: refused with the consolidate
 * message when it ends above the cap, unless it shrinks a file that was already above. An entry that alone
 * is over the cap and that `written` names (it gives the words that introduce a refusal about it) is
 * refused as such, since no consolidation can make room for it. Throws {@link MemoryRefusal} `over_cap`
 * or `entry_too_long`.
 */
export function checkCap(
  entries: readonly string[],
  next: readonly string[],
  limit: number,
  file: string,
  written: (entry: string) => ((text: string) => string) | undefined = () => undefined,
): number {
  const before = countChars(joinEntries(entries))
  const chars = countChars(joinEntries(next))
  if (chars > limit && chars > before) {
    // No consolidation can make room for an entry that alone is over the cap: say that instead.
    const tooLong = next.find((entry) => written(entry) && countChars(entry, { max: limit }) > limit)
    const about = tooLong === undefined ? undefined : written(tooLong)
    if (about) {
      throw new MemoryRefusal(
        'entry_too_long',
        about(
          `the entry alone is longer than the whole of ${file} may be (its cap is ${formatCount(limit)} characters), so no consolidation can make room for it. Nothing was written. Save the durable facts it holds as a few short entries instead.`,
        ),
      )
    }
    throw new MemoryRefusal('over_cap', overCapMessage(file, entries, before, chars, limit))
  }
  return chars
}

/** The over-cap refusal lists this many entries at most, so it stays short for a file edited far past the cap. */
const LISTED_ENTRIES = 30

function overCapMessage(
  file: string,
  entries: readonly string[],
  before: number,
  after: number,
  limit: number,
) {
  const listed = entries
    .slice(0, LISTED_ENTRIES)
    .map((entry, i) => `  ${i + 1}. ${preview(entry, 120)}`)
    .concat(entries.length > LISTED_ENTRIES ? [`  … and ${entries.length - LISTED_ENTRIES} more`] : [])
    .join('\n')
  return [
    `${file} would hold ${formatCount(after)} characters, over its cap of ${formatCount(limit)} (now ${formatCount(before)}, ${percent(before, limit)}). Nothing was written.`,
    'Consolidate first: merge related entries and remove stale ones with replace/remove (one batch can do both and then add), then retry.',
    `Current entries:\n${listed || '  (none)'}`,
  ].join('\n')
}

/** `added 2 entries, removed 1 entry`, or `no change (already there)`. */
export function describeChanges(changes: AppliedBatch['changes']): string {
  const parts = (['added', 'replaced', 'removed'] as const)
    .filter((verb) => changes[verb] > 0)
    .map((verb) => `${verb} ${changes[verb]} ${changes[verb] === 1 ? 'entry' : 'entries'}`)
  if (changes.unchanged > 0)
    parts.push(parts.length ? `${changes.unchanged} already there` : 'no change (already there)')
  return parts.join(', ')
}

const numberFormat = new Intl.NumberFormat('en-US')

/** `1,364` */
export const formatCount = (n: number) => numberFormat.format(n)

/** `62%` of the limit, rounded. */
export const percent = (chars: number, limit: number) =>
  `${limit > 0 ? Math.round((chars / limit) * 100) : 100}%`
