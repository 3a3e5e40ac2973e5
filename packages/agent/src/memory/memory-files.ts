import { createHash } from 'node:crypto'
import { copyFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { EngramError } from '@engram/core'
import type { MemoryFilesConfig } from '../config/types.ts'
import { type SecondOpinion, scanWithSecondOpinion } from '../security/second-opinion.ts'
import { scanForThreats, type ThreatScan } from '../security/threats.ts'
import { FileError, readIfExists, withFileLock, writeFileAtomic } from './atomic-file.ts'
import { countChars, joinEntries, parseEntries, parseText, serializeEntries } from './format.ts'
import {
  type AppliedBatch,
  applyOperations,
  checkCap,
  describeChanges,
  formatCount,
  type MemoryOperation,
  MemoryRefusal,
  type MemoryTarget,
  percent,
} from './operations.ts'
import { renderBlock } from './snapshot.ts'

/** Usage of one memory file. */
interface MemoryUsage {
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

/** One file's entries as {@link MemoryFiles.read} returns them. */
export interface MemoryEntries {
  entries: string[]
  chars: number
  limit: number
  /** Entries (numbered from 1) the threat scan keeps out of prompts, and why; absent when none is. */
  blocked?: { entry: number; reason: string }[]
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

  /** The config key that names the file, for messages about it. */
  private configKey(target: MemoryTarget): string {
    return target === 'memory' ? 'memory.memory_md_path' : 'memory.user_md_path'
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
      (await readIfExists(path).catch((error) => this.fileError(error, 'Reading', target))) ??
      new Uint8Array()
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
      const allowed = await this.allowed(target)
      let lines: string[]
      if (state.ok) {
        const shown = shownEntries(state.entries, state.chars, limit, file)
        // The entries are scanned, never the note written about them here
        lines = shown.entries.map((entry) => {
          const scan = scanUnlessAllowed(entry, allowed)
          return scan.ok ? entry : `[BLOCKED: ${scan.reason}]`
        })
        if (shown.note !== null) lines.push(shown.note)
      } else
        lines = [`[UNREADABLE: ${file} does not parse (${state.reason}); ask the user to fix it by hand]`]
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
   * The current entries of one file, as data for tools and UIs (quoted by replace/remove), and `blocked`:
   * the entries the threat scan would keep out of a prompt, with the reason (absent when there is none).
   * Throws {@link MemoryRefusal} `unparseable` when the file does not parse.
   */
  async read(target: MemoryTarget): Promise<MemoryEntries> {
    const state = await this.load(target)
    if (!state.ok) throw this.unparseable(target, state.reason, null)
    const allowed = await this.allowed(target)
    const blocked = state.entries.flatMap((entry, index) => {
      const scan = scanUnlessAllowed(entry, allowed)
      return scan.ok ? [] : [{ entry: index + 1, reason: scan.reason }]
    })
    return {
      entries: state.entries,
      chars: state.chars,
      limit: this.limit(target),
      ...(blocked.length > 0 ? { blocked } : {}),
    }
  }

  /**
   * Applies a batch of operations to one file, all or nothing: the content is scanned for threats, then
   * under the file's lock the file is re-read, the batch applied and checked against the cap, and the file
   * replaced atomically. Throws {@link MemoryRefusal} (an EngramError) with a message for the model when
   * the batch is refused; nothing is written then. Cost: one lock, one read, at most one write and fsync.
   *
   * `allowThreats` is for a person who has read the refusal and confirmed (the CLI's `engram memory add
   * --allow`), never for a model's tool call: the content is saved unscanned and its hash recorded in
   * `<file>.allowed`, so snapshots and {@link read} show it instead of blocking it.
   *
   * `secondOpinion` (off unless given; the agent's memory tool passes it when `secondOpinion` is set)
   * asks the auxiliary model about content the scan passes but is unsure of (see second-opinion.ts); it
   * can only refuse more.
   */
  async apply(
    target: MemoryTarget,
    operations: MemoryOperation[],
    options: { allowThreats?: boolean; secondOpinion?: SecondOpinion } = {},
  ): Promise<MemoryWriteResult> {
    const path = this.path(target)
    const file = basename(path)
    const limit = this.limit(target)
    // Content over the cap on its own is scanned only if the batch passes the cap check (it almost never
    // does), so a huge entry is refused at the cost of counting it, not of scanning it.
    const oversized: [number, string][] = []
    for (const [index, operation] of (Array.isArray(operations) ? operations : []).entries()) {
      const content = (operation as { content?: unknown })?.content
      if (typeof content !== 'string' || options.allowThreats) continue
      const subject = operationSubject(index, operations.length)
      if (countChars(content, { max: limit }) > limit) oversized.push([index, content])
      else if (options.secondOpinion) {
        refuseScan(subject, await scanWithSecondOpinion(content, options.secondOpinion))
      } else refuseThreat(subject, content)
    }
    return this.commit(
      target,
      (entries) => {
        const batch = applyOperations(entries, operations, limit, file)
        for (const [index, content] of oversized)
          refuseThreat(operationSubject(index, operations.length), content)
        return batch
      },
      options.allowThreats ? (stillHeld) => this.allow(target, operations, stillHeld) : undefined,
    )
  }

  /**
   * Rewrites one file as text, all or nothing: under the file's lock the file is re-read, `change` gets its
   * text (as {@link serializeEntries} writes it) and returns the new text, which must parse; every entry
   * that was not there before is scanned for threats, the result is checked against the cap (the same
   * refusals as {@link apply}) and the file replaced atomically. `change` may throw to refuse; nothing is
   * written then. Cost: one lock, one read, a scan of the new entries, at most one write and fsync.
   */
  async edit(target: MemoryTarget, change: (text: string) => string): Promise<MemoryWriteResult> {
    const file = basename(this.path(target))
    const limit = this.limit(target)
    return this.commit(target, (entries) => {
      const parsed = parseText(change(serializeEntries(entries)))
      if (!parsed.ok) {
        throw new MemoryRefusal('invalid', `${file} would not parse (${parsed.reason}); nothing was written.`)
      }
      const before = new Set(entries)
      const chars = checkCap(entries, parsed.entries, limit, file, (entry) =>
        before.has(entry) ? undefined : (text) => `A new entry of ${file}: ${text}`,
      )
      const after = new Set(parsed.entries)
      for (const [index, entry] of parsed.entries.entries()) {
        if (!before.has(entry)) refuseThreat(`Entry ${index + 1} of ${file}`, entry)
      }
      const added = parsed.entries.filter((entry) => !before.has(entry)).length
      const removed = entries.filter((entry) => !after.has(entry)).length
      const replaced = Math.min(added, removed)
      return {
        entries: parsed.entries,
        chars,
        changes: { added: added - replaced, replaced, removed: removed - replaced, unchanged: 0 },
      }
    })
  }

  /** Where the hashes of entries a person allowed past the threat scan are kept: `MEMORY.md.allowed`. */
  private allowPath(target: MemoryTarget): string {
    return `${this.path(target)}.allowed`
  }

  /** The hashes of the entries allowed past the threat scan (none when the file is absent). */
  private async allowed(target: MemoryTarget): Promise<Set<string>> {
    const bytes = await readIfExists(this.allowPath(target)).catch((error) =>
      this.fileError(error, 'Reading', target),
    )
    const text = bytes ? new TextDecoder().decode(bytes) : ''
    return new Set(text.split('\n').filter((line) => /^[0-9a-f]{64}$/.test(line)))
  }

  /** Records the contents of `operations` that the scan refuses as allowed (under the file's lock). */
  private async allow(target: MemoryTarget, operations: MemoryOperation[], stillHeld: () => void) {
    const allowed = await this.allowed(target)
    const before = allowed.size
    for (const operation of operations) {
      const content = (operation as { content?: unknown }).content
      if (typeof content === 'string' && !scanForThreats(content).ok) allowed.add(entryHash(content))
    }
    if (allowed.size === before) return
    await writeFileAtomic(this.allowPath(target), `${[...allowed].join('\n')}\n`, stillHeld)
  }

  /**
   * Under the lock: re-reads the file, computes the batch from its entries, runs `beforeWrite` (still under
   * the lock) and writes the file when it changed.
   */
  private async commit(
    target: MemoryTarget,
    compute: (entries: readonly string[]) => AppliedBatch,
    beforeWrite?: (stillHeld: () => void) => Promise<void>,
  ): Promise<MemoryWriteResult> {
    const path = this.path(target)
    const file = basename(path)
    const limit = this.limit(target)
    return this.locked(target, async (stillHeld) => {
      const state = await this.load(target)
      if (!state.ok) throw this.unparseable(target, state.reason, await this.backup(path, state.bytes))
      const batch = compute(state.entries)
      const changed = joinEntries(batch.entries) !== joinEntries(state.entries)
      await beforeWrite?.(stillHeld)
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
  private async locked<T>(target: MemoryTarget, work: (stillHeld: () => void) => Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.path(target), work)
    } catch (error) {
      if (error instanceof EngramError) throw error
      return this.fileError(error, 'Writing', target)
    }
  }

  /** A file-system failure as the memory's own error: a refusal to retry, or what to fix and where. */
  private fileError(error: unknown, action: string, target: MemoryTarget): never {
    const path = this.path(target)
    const file = basename(path)
    if (!(error instanceof FileError)) {
      const detail = error instanceof Error ? error.message : String(error)
      throw new EngramError('MEMORY_FILE_ERROR', `${action} the memory file ${path} failed (${detail}).`, {
        cause: error,
      })
    }
    if (error.failure === 'locked') {
      throw new MemoryRefusal(
        'locked',
        `Writing ${file}: ${error.message}. Nothing was written. Retry in a moment; if no agent is running, delete the folder ${error.path}.`,
      )
    }
    if (error.failure === 'lock_lost') {
      throw new MemoryRefusal('locked', `Writing ${file}: ${error.message}; nothing was written. Retry.`)
    }
    const fix: Record<Exclude<FileError['failure'], 'locked' | 'lock_lost'>, string> = {
      permission: `this user cannot write ${error.path} (or it is on a read-only file system): give it write access, or set ${this.configKey(target)} to a file in a folder it can write`,
      wrong_kind: `${error.path} is not what it should be (a file where a folder is needed, or a folder where the file is): move it away, or set ${this.configKey(target)} to another path`,
      disk_full: `the disk holding ${error.path} is full: free some space, then retry`,
      io: `check ${error.path} and ${this.configKey(target)}, then retry`,
    }
    throw new EngramError(
      error.failure === 'disk_full' ? 'DISK_FULL' : 'MEMORY_FILE_ERROR',
      `${action} the memory file ${path} failed (${error.message}). Nothing was written. Fix: ${fix[error.failure]}.`,
      { cause: error },
    )
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

/** Refuses `subject` (`Operation 2`, `Entry 3 of MEMORY.md`) when its content fails the threat scan. */
const entryHash = (entry: string) => createHash('sha256').update(entry.trim()).digest('hex')

/** The threat scan, passed by an entry a person allowed (see {@link MemoryFiles.apply}). */
function scanUnlessAllowed(entry: string, allowed: Set<string>) {
  return allowed.size > 0 && allowed.has(entryHash(entry)) ? ({ ok: true } as const) : scanForThreats(entry)
}

/** How a refusal names operation `index` of a batch of `count`: a single operation is "The entry". */
function operationSubject(index: number, count: number): string {
  return count > 1 ? `Operation ${index + 1}` : 'The entry'
}

function refuseThreat(subject: string, content: string): void {
  refuseScan(subject, scanForThreats(content))
}

function refuseScan(subject: string, scan: ThreatScan): void {
  if (scan.ok) return
  throw new MemoryRefusal(
    'threat',
    `${subject} was refused: its content looks like ${scan.reason}. Memory entries reach future system prompts, so store facts in plain words without instructions, commands that move secrets, credentials or hidden characters.`,
  )
}

/** The delimiter line and its two newlines, as counted between two entries. */
const DELIMITER_CHARS = 3

/**
 * The entries of a file over its cap as the prompt shows them: as many as fit in the cap, the one that
 * crosses it cut, and a note saying how much was left out and what to do (null under the cap). Linear in
 * what is shown.
 */
function shownEntries(
  entries: readonly string[],
  chars: number,
  limit: number,
  file: string,
): { entries: string[]; note: string | null } {
  if (chars <= limit) return { entries: [...entries], note: null }
  const shown: string[] = []
  let whole = 0
  let budget = limit
  for (const entry of entries) {
    if (budget <= 0) break
    const size = countChars(entry, { max: budget })
    if (size <= budget) whole++
    shown.push(size <= budget ? entry : `${cutToChars(entry, budget)}…`)
    budget -= size + DELIMITER_CHARS
  }
  return {
    entries: shown,
    note: `[TRUNCATED: ${file} holds ${formatCount(chars)} characters, over its cap of ${formatCount(limit)}; ${entries.length - whole} of ${entries.length} entries are not shown in full. Consolidate it: merge or remove entries with the memory tool (replace/remove) before adding more.]`,
  }
}

/** The first `max` grapheme clusters of `text` (a prefix of about that many characters). */
function cutToChars(text: string, max: number): string {
  const segments = new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text.slice(0, max * 4))
  let end = 0
  let count = 0
  for (const { index, segment } of segments) {
    if (count++ >= max) break
    end = index + segment.length
  }
  return text.slice(0, end)
}
