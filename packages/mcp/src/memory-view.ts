import { basename } from 'node:path'
import { type MemoryFiles, MemoryRefusal, type MemoryTarget, renderBlock } from '@engram/agent'

export const TARGETS = ['memory', 'user'] as const satisfies readonly MemoryTarget[]
const LABEL: Record<MemoryTarget, string> = { memory: 'MEMORY', user: 'USER PROFILE' }

/** One memory file as a client sees it: its entries (threat-scanned) and usage. */
export interface MemoryFileView {
  target: MemoryTarget
  file: string
  /** The block with its usage header, `══ MEMORY [62% — 1,364/2,200 chars] ══`, as the system prompt shows it. */
  text: string
  entries: string[]
  chars: number
  limit: number
}

export function memoryPath(memory: MemoryFiles, target: MemoryTarget): string {
  return target === 'memory' ? memory.config.memoryPath : memory.config.userPath
}

/**
 * Reads one file. Entries that fail the threat scan are shown as `[BLOCKED: reason]` (the text reaches a
 * model's context); a file that does not parse is one line saying so and how to fix it.
 */
export async function viewMemoryFile(memory: MemoryFiles, target: MemoryTarget): Promise<MemoryFileView> {
  const file = basename(memoryPath(memory, target))
  try {
    const { entries, chars, limit, blocked } = await memory.read(target)
    // The file's own verdicts (read() honours entries a person allowed with `engram memory add --allow`).
    const reasons = new Map(blocked?.map((b) => [b.entry - 1, b.reason]))
    const shown = entries.map((entry, index) => {
      const reason = reasons.get(index)
      return reason === undefined ? entry : `[BLOCKED: ${reason}]`
    })
    return {
      target,
      file,
      text: renderBlock(LABEL[target], shown, chars, limit),
      entries: shown,
      chars,
      limit,
    }
  } catch (error) {
    if (!(error instanceof MemoryRefusal)) throw error
    const limit = target === 'memory' ? memory.config.memoryCharLimit : memory.config.userCharLimit
    return { target, file, text: `[UNREADABLE: ${error.message}]`, entries: [], chars: 0, limit }
  }
}
