import { createHash } from 'node:crypto'
import { copyFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { EngramError } from '@engram/core'
import type { MemoryFilesConfig } from '../config/types.ts'
import { scanForThreats } from '../security/threats.ts'
import { readIfExists, withFileLock, writeFileAtomic } from './atomic-file.ts'
import { countChars, joinEntries, parseEntries, serializeEntries } from './format.ts'
import {
  applyOperations,
  describeChanges,
  formatCount,
  type MemoryOperation,
  MemoryRefusal,
  type MemoryTarget,
  percent,
} from './operations.ts'
import { renderBlock } from './snapshot.ts'

/** Usage of one memory file. */
export interface MemoryUsage {
  chars: number
  limit: number
  entries: number
}

/** What the system prompt gets at session start; later writes do not change it. */
export interface MemorySnapshot {
  /** The MEMORY and USER blocks with usage headers, ready to put in the system prompt. */
  text: string
  memory: MemoryUsage
  user: MemoryUsage
  /** Usage of either file is above `compactTriggerRatio`: the agent should consolidate. */
  needsConsolidation: boolean
}

/** The outcome of an applied batch. */
export interface MemoryWriteResult extends MemoryUsage {
  target: MemoryTarget
  /** False when the batch changed nothing (e.g. an entry that was already there). */
  changed: boolean
  /** Usage is now above `compactTriggerRatio`; the summary then asks to consolidate. */
  needsConsolidation: boolean
  /** One short line for the model: what happened and the new usage. */
  summary: string
}

/** The entries of a file as they are on disk, or why they cannot be read. */
type FileState =
  | { ok: true; entries: string[]; chars: number }
  | { ok: false; reason: string; bytes: Uint8Array }

const LABEL: Record<MemoryTarget, string> = { memory: 'MEMORY', user: 'USER PROFILE' }

/**
 * MEMORY.md (the agent's notes) and USER.md (the user profile). Every write takes the file's lock,
 * re-reads the file under it and replaces it atomically, so agents in several processes can share the
 * files. A file that does not parse is never rewritten: it is backed up and the write refused.
 */
export class MemoryFiles {
  constructor(readonly config: MemoryFilesConfig) {}

  private path(target: MemoryTarget): string {
    if (target === 'memory') return this.config.memoryPath
    if (target === 'user') return this.config.userPath
    throw new MemoryRefusal('invalid', `target must be "memory" or "user" (got ${JSON.stringify(target)}).`)
  }

  private limit(target: MemoryTarget): number {
    return target === 'memory' ? this.config.memoryCharLimit : this.config.userCharLimit
  }

  private nearlyFull(chars: number, limit: number): boolean {
    return chars > limit * this.config.compactTriggerRatio
  }

  private async load(target: MemoryTarget): Promise<FileState> {
    const path = this.path(target)
    const bytes =
      (await readIfExists(path).catch((error) => fileError(error, 'Reading', path))) ?? new Uint8Array()
    const parsed = parseEntries(bytes)
    if (!parsed.ok) return { ok: false, reason: parsed.reason, bytes }
    return { ok: true, entries: parsed.entries, chars: countChars(joinEntries(parsed.entries)) }
  }

  /**
   * Reads both files once, for the system prompt of a new session. Entries that fail the threat scan are
   * shown as `[BLOCKED: reason]`; a file that does not parse is shown as one line saying so. Usage counts
   * what is on disk. Cost: two file reads, linear in their size.
   */
  async snapshot(): Promise<MemorySnapshot> {
    const blocks: string[] = []
    const usage = {} as Record<MemoryTarget, MemoryUsage>
    for (const target of ['memory', 'user'] as const) {
      const state = await this.load(target)
      const limit = this.limit(target)
      const file = basename(this.path(target))
      const lines = state.ok
        ? state.entries.map((entry) => {
            const scan = scanForThreats(entry)
            return scan.ok ? entry : `[BLOCKED: ${scan.reason}]`
          })
        : [`[UNREADABLE: ${file} does not parse (${state.reason}); ask the user to fix it by hand]`]
      const chars = state.ok ? state.chars : countChars(new TextDecoder().decode(state.bytes))
      usage[target] = { chars, limit, entries: state.ok ? state.entries.length : 0 }
      blocks.push(renderBlock(LABEL[target], lines, chars, limit))
    }
    return {
      text: blocks.join('\n\n'),
      memory: usage.memory,
      user: usage.user,
      needsConsolidation: [usage.memory, usage.user].some((u) => this.nearlyFull(u.chars, u.limit)),
    }
  }

  /**
   * The current entries of one file (not scanned: for tools and UIs that show them as data).
   * Throws {@link MemoryRefusal} `unparseable` when the file does not parse.
   */
  async read(target: MemoryTarget): Promise<{ entries: string[]; chars: number; limit: number }> {
    const state = await this.load(target)
    if (!state.ok) throw this.unparseable(target, state.reason, null)
    return { entries: state.entries, chars: state.chars, limit: this.limit(target) }
  }

  /**
   * Applies a batch of operations to one file, all or nothing: the content is scanned for threats, then
   * under the file's lock the file is re-read, the batch applied and checked against the cap, and the file
   * replaced atomically. Throws {@link MemoryRefusal} (an EngramError) with a message for the model when
   * the batch is refused; nothing is written then. Cost: one lock, one read, at most one write and fsync.
   */
  async apply(target: MemoryTarget, operations: MemoryOperation[]): Promise<MemoryWriteResult> {
    const path = this.path(target)
    const file = basename(path)
    for (const [index, operation] of (Array.isArray(operations) ? operations : []).entries()) {
      const content = (operation as { content?: unknown })?.content
      if (typeof content !== 'string') continue
      const scan = scanForThreats(content)
      if (!scan.ok) {
        throw new MemoryRefusal(
          'threat',
          `Operation ${index + 1} was refused: its content looks like ${scan.reason}. Memory entries reach future system prompts, so store facts in plain words without instructions, commands that move secrets, credentials or hidden characters.`,
        )
      }
    }
    return this.locked(path, async (stillHeld) => {
      const state = await this.load(target)
      if (!state.ok) throw this.unparseable(target, state.reason, await this.backup(path, state.bytes))
      const limit = this.limit(target)
      const batch = applyOperations(state.entries, operations, limit, file)
      const changed = joinEntries(batch.entries) !== joinEntries(state.entries)
      if (changed) await writeFileAtomic(path, serializeEntries(batch.entries), stillHeld)
      const entries = batch.entries.length
      const needsConsolidation = this.nearlyFull(batch.chars, limit)
      const usage = `${formatCount(batch.chars)}/${formatCount(limit)} chars (${percent(batch.chars, limit)}), ${entries} ${entries === 1 ? 'entry' : 'entries'}`
      const nudge = needsConsolidation
        ? ' Nearly full: consolidate (merge or remove entries) before adding more.'
        : ''
      return {
        target,
        changed,
        chars: batch.chars,
        limit,
        entries,
        needsConsolidation,
        summary: `${file}: ${describeChanges(batch.changes)}; now ${usage}.${nudge}`,
      }
    })
  }

  /** {@link withFileLock}, with file-system failures (a folder that cannot be created, no permission) explained. */
  private async locked<T>(path: string, work: (stillHeld: () => void) => Promise<T>): Promise<T> {
    try {
      return await withFileLock(path, work)
    } catch (error) {
      if (error instanceof EngramError) throw error
      return fileError(error, 'Writing', path)
    }
  }

  /** Copies the unparseable file next to itself once per distinct content, and returns the copy's path. */
  private async backup(path: string, bytes: Uint8Array): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12)
    const copy = `${path}.unparsed-${hash}.bak`
    const exists = await stat(copy).then(
      () => true,
      () => false,
    )
    if (!exists) await copyFile(path, copy)
    return copy
  }

  private unparseable(target: MemoryTarget, reason: string, backup: string | null): MemoryRefusal {
    const file = basename(this.path(target))
    return new MemoryRefusal(
      'unparseable',
      `${file} does not parse (${reason}), so it was left as it is${backup ? ` and backed up to ${backup}` : ''}. Nothing was written. Ask the user to fix ${this.path(target)} by hand, then retry.`,
    )
  }
}

function fileError(error: unknown, action: string, path: string): never {
  const detail = error instanceof Error ? error.message : String(error)
  throw new EngramError(
    'INVALID_CONFIG',
    `${action} the memory file ${path} failed (${detail}). Check that memory.memory_md_path and memory.user_md_path name files in a folder this user can write.`,
    { cause: error },
  )
}
