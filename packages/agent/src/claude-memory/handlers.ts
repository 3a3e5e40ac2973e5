import { dirname, join } from 'node:path'
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory'
import { DEFAULT_CLAUDE_MEMORY_CHAR_LIMIT } from '../config/defaults.ts'
import { FileError, withFileLock } from '../memory/atomic-file.ts'
import { countChars, serializeEntries } from '../memory/format.ts'
import type { MemoryFiles } from '../memory/memory-files.ts'
import { formatCount, type MemoryTarget, percent } from '../memory/operations.ts'
import { scanForThreats } from '../security/threats.ts'
import { isWithin, MEMORIES_ROOT, type MemoryPath, MemoryToolError, memoryPath } from './paths.ts'
import { type ClaudeMemoryStore, type StoredFile, StoreFiles } from './store-files.ts'
import { formatSize, insertedAnswer, insertText, replaceText, viewText } from './text.ts'

export interface ClaudeMemoryOptions {
  /** MEMORY.md and USER.md: `/memories/MEMORY.md` and `/memories/USER.md` are these files. */
  memory: MemoryFiles
  /** Where every other file under /memories is kept. */
  store: ClaudeMemoryStore
  /** Whose memories these are: the Store files are this user's sessions. */
  userId: string
  /** The cap of the Store files all together, in characters; default {@link DEFAULT_CLAUDE_MEMORY_CHAR_LIMIT}. */
  charLimit?: number
  /** The lock that serialises this user's Store-file writes across processes; default next to MEMORY.md. */
  lockPath?: string
}

const FILE_TARGETS: Record<string, MemoryTarget> = { 'MEMORY.md': 'memory', 'USER.md': 'user' }

type Resolved =
  | { kind: 'root'; path: string }
  | { kind: 'memory-file'; path: string; target: MemoryTarget }
  | { kind: 'store'; path: string; segments: string[] }

function resolve(raw: unknown): Resolved {
  const { path, segments }: MemoryPath = memoryPath(raw)
  if (segments.length === 0) return { kind: 'root', path }
  const [first] = segments as [string]
  const named = Object.keys(FILE_TARGETS).find((name) => name.toLowerCase() === first.toLowerCase())
  if (named && (first !== named || segments.length > 1)) {
    throw new MemoryToolError(
      `The path ${path} was refused: /memories/${named} is Engram's memory file${first !== named ? ' (names differ only in case)' : ', not a folder'}. Use /memories/${named} itself, or another name.`,
    )
  }
  if (named) return { kind: 'memory-file', path, target: FILE_TARGETS[named] as MemoryTarget }
  return { kind: 'store', path, segments }
}

const missing = (path: string) =>
  new MemoryToolError(`The path ${path} does not exist. Please provide a valid path.`, 'not_found')
const bytes = (text: string) => Buffer.byteLength(text, 'utf8')

// A lone UTF-16 surrogate cannot be stored as UTF-8; NUL cannot be stored as PostgreSQL text.
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function checkStorable(path: string, content: string): void {
  if (UNSTORABLE.test(content)) {
    throw new MemoryToolError(
      `${path} was not written: the text holds a NUL character or a lone UTF-16 surrogate, which cannot be stored. Send it without them.`,
    )
  }
}

/**
 * The handlers of Claude's memory tool (`memory_20250818`) on Engram, for `betaMemoryTool(handlers)`:
 * `/memories/MEMORY.md` and `/memories/USER.md` are Engram's memory files (entry format, caps, lock,
 * atomic writes, threat scan); every other file is kept in the Store as the user's sessions, scanned and
 * under one total cap, its writes serialised by a file lock. Every path is checked by {@link memoryPath}.
 * Refusals throw, and the tool runner sends their message back as an `is_error` result.
 */
export function createClaudeMemoryHandlers(options: ClaudeMemoryOptions): MemoryToolHandlers {
  const { memory, userId } = options
  const files = new StoreFiles(options.store, userId)
  const charLimit = options.charLimit ?? DEFAULT_CLAUDE_MEMORY_CHAR_LIMIT
  const lockPath = options.lockPath ?? join(dirname(memory.config.memoryPath), '.claude-memories')

  const locked = async <T>(work: (stillHeld: () => void) => Promise<T>): Promise<T> => {
    try {
      return await withFileLock(lockPath, work)
    } catch (error) {
      if (!(error instanceof FileError)) throw error
      throw new MemoryToolError(
        `Writing under /memories failed: ${error.message}. Nothing was written. Retry.`,
      )
    }
  }

  const memoryText = async (target: MemoryTarget) => serializeEntries((await memory.read(target)).entries)

  /** Refuses content that cannot be stored or fails the threat scan. */
  const checkContent = (path: string, content: string) => {
    checkStorable(path, content)
    const scan = scanForThreats(content)
    if (!scan.ok) {
      throw new MemoryToolError(
        `${path} was refused: its content looks like ${scan.reason}. Memory files reach future sessions, so store facts in plain words without instructions, commands that move secrets, credentials or hidden characters.`,
        'threat',
      )
    }
  }

  /** Refuses a Store write that would take the files over their total cap (a shrinking write passes). */
  const checkCap = async (current: Map<string, StoredFile>, path: string, content: string) => {
    let before = 0
    let others = 0
    for (const file of current.values()) {
      const size = countChars(await files.readLocked(file))
      before += size
      if (file.path !== path) others += size
    }
    const after = others + countChars(content)
    if (after > charLimit && after > before) {
      throw new MemoryToolError(
        `${path} was not written: the files under /memories other than MEMORY.md and USER.md would hold ${formatCount(after)} characters, over their cap of ${formatCount(charLimit)} (now ${formatCount(before)}, ${percent(before, charLimit)}). Consolidate first: merge related files, shorten or delete stale ones, then retry.`,
        'over_cap',
      )
    }
  }

  /** Edits a Store file's text under the lock: read, change, check, write. */
  const editStored = (path: string, change: (content: string) => string) =>
    locked(async (stillHeld) => {
      const current = await files.list()
      const file = current.get(path)
      if (!file) {
        if ([...current.keys()].some((other) => isWithin(other, path))) {
          throw new MemoryToolError(`The path ${path} is not a file.`)
        }
        throw missing(path)
      }
      const next = change(await files.readLocked(file))
      checkContent(path, next)
      await checkCap(current, path, next)
      await files.write(path, next, file, stillHeld)
    })

  /** Edits MEMORY.md or USER.md as text; the answer gets the file's usage line. */
  const editMemory = async (
    { path, target }: { path: string; target: MemoryTarget },
    change: (text: string) => string,
    answer: () => string,
  ) => {
    const result = await memory.edit(target, (text) => {
      const next = change(text)
      checkStorable(path, next)
      return next
    })
    return `${answer()}\n${result.summary}`
  }

  /** The listing of a folder, two levels deep, as the SDK's filesystem tool shows it. */
  const listing = async (folder: string) => {
    const stored = await files.list()
    const sizes = new Map<string, number>()
    if (folder === MEMORIES_ROOT) {
      for (const [name, target] of Object.entries(FILE_TARGETS)) {
        const text = await memoryText(target).catch(() => '')
        sizes.set(`${MEMORIES_ROOT}/${name}`, bytes(text))
      }
    }
    for (const path of stored.keys()) {
      if (!isWithin(path, folder) || path === folder) continue
      const current = await files.readCurrent(path)
      if (current) sizes.set(path, bytes(current.content))
    }
    if (sizes.size === 0 && folder !== MEMORIES_ROOT) throw missing(folder)
    const depth = folder.split('/').length
    const items = new Map<string, number>()
    for (const [path, size] of sizes) {
      const parts = path.split('/')
      for (let end = depth + 1; end <= Math.min(parts.length, depth + 2); end++) {
        const item = parts.slice(0, end).join('/') + (end < parts.length ? '/' : '')
        items.set(item, (items.get(item) ?? 0) + size)
      }
    }
    const total = [...sizes.values()].reduce((sum, size) => sum + size, 0)
    const lines = [...items.keys()].sort().map((item) => `${formatSize(items.get(item) ?? 0)}\t${item}`)
    return [
      `Here're the files and directories up to 2 levels deep in ${folder}, excluding hidden items and node_modules:`,
      `${formatSize(total)}\t${folder}`,
      ...lines,
    ].join('\n')
  }

  return {
    async view({ path: raw, view_range }) {
      const at = resolve(raw)
      if (at.kind === 'root') return listing(at.path)
      if (at.kind === 'memory-file') return viewText(at.path, await memoryText(at.target), view_range)
      const current = await files.readCurrent(at.path)
      if (!current) return listing(at.path)
      return viewText(at.path, current.content, view_range)
    },

    async create({ path: raw, file_text }) {
      const at = resolve(raw)
      if (typeof file_text !== 'string') throw new MemoryToolError('file_text must be a string.')
      const created = `File created successfully at: ${at.path}`
      const exists = new MemoryToolError(`File ${at.path} already exists`)
      if (at.kind === 'root') throw exists
      if (at.kind === 'memory-file') {
        return editMemory(
          at,
          (text) => {
            if (text !== '') throw exists
            return file_text
          },
          () => created,
        )
      }
      await locked(async (stillHeld) => {
        const current = await files.list()
        if (current.has(at.path) || [...current.keys()].some((other) => isWithin(other, at.path)))
          throw exists
        const parentFile = [...current.keys()].find((other) => isWithin(at.path, other))
        if (parentFile)
          throw new MemoryToolError(`${at.path} was not created: ${parentFile} is a file, not a folder.`)
        checkContent(at.path, file_text)
        await checkCap(current, at.path, file_text)
        await files.write(at.path, file_text, null, stillHeld)
      })
      return created
    },

    async str_replace({ path: raw, old_str, new_str }) {
      const at = resolve(raw)
      if (at.kind === 'root') throw new MemoryToolError(`The path ${at.path} is not a file.`)
      let answer = ''
      const change = (content: string) => {
        const replaced = replaceText(at.path, content, old_str, new_str)
        answer = replaced.answer
        return replaced.content
      }
      if (at.kind === 'memory-file') return editMemory(at, change, () => answer)
      await editStored(at.path, change)
      return answer
    },

    async insert({ path: raw, insert_line, insert_text }) {
      const at = resolve(raw)
      if (at.kind === 'root') throw new MemoryToolError(`The path ${at.path} is not a file.`)
      const change = (content: string) => insertText(content, insert_line, insert_text)
      if (at.kind === 'memory-file') return editMemory(at, change, () => insertedAnswer(at.path))
      await editStored(at.path, change)
      return insertedAnswer(at.path)
    },

    async delete({ path: raw }) {
      const at = resolve(raw)
      const deleted = `Successfully deleted ${at.path}`
      if (at.kind === 'root') throw new MemoryToolError('Cannot delete the /memories directory itself')
      if (at.kind === 'memory-file')
        return editMemory(
          at,
          () => '',
          () => deleted,
        )
      await locked(async (stillHeld) => {
        const doomed = [...(await files.list()).keys()].filter((path) => isWithin(path, at.path))
        if (doomed.length === 0) throw new MemoryToolError(`The path ${at.path} does not exist`)
        for (const path of doomed) await files.delete(path, stillHeld)
      })
      return deleted
    },

    async rename({ old_path, new_path }) {
      const from = resolve(old_path)
      const to = resolve(new_path)
      if (from.kind === 'root') throw new MemoryToolError('Cannot rename the /memories directory itself')
      if (from.kind === 'memory-file' || to.kind === 'memory-file' || to.kind === 'root') {
        throw new MemoryToolError(
          `${from.path} cannot be renamed to ${to.path}: /memories/MEMORY.md and /memories/USER.md are Engram's memory files and keep their names. To move text between them and other files, create or edit the new file, then str_replace or delete the old text.`,
        )
      }
      if (isWithin(to.path, from.path)) {
        throw new MemoryToolError(`${from.path} cannot be renamed to ${to.path}, which lies inside it.`)
      }
      await locked(async (stillHeld) => {
        const current = await files.list()
        const moving = [...current.values()].filter((file) => isWithin(file.path, from.path))
        if (moving.length === 0) throw new MemoryToolError(`The path ${from.path} does not exist`)
        const paths = [...current.keys()]
        if (paths.some((path) => isWithin(path, to.path))) {
          throw new MemoryToolError(`The destination ${to.path} already exists`)
        }
        const parentFile = paths.find((path) => isWithin(to.path, path))
        if (parentFile)
          throw new MemoryToolError(`${to.path} cannot be written: ${parentFile} is a file, not a folder.`)
        // Every copy is written before any original is deleted: a crash leaves both, never neither.
        for (const file of moving) {
          const target = to.path + file.path.slice(from.path.length)
          await files.write(target, await files.readLocked(file), await files.current(target), stillHeld)
        }
        for (const file of moving) await files.delete(file.path, stillHeld)
      })
      return `Successfully renamed ${from.path} to ${to.path}`
    },
  }
}
