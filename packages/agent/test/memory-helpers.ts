import { join } from 'node:path'
import { expect } from 'vitest'
import { type Child, exitWithin, killIfRunning } from '../../core/test/processes/spawn.ts'
import type { MemoryFilesConfig } from '../src/config/types.ts'
import {
  DEFAULT_COMPACT_TRIGGER_RATIO,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_USER_CHAR_LIMIT,
} from '../src/index.ts'

export { tempDir } from '../../core/test/helpers.ts'

let counter = 0

/** Memory file paths in a new sub-folder (not created yet) of `dir`, with the default limits. */
export function memoryConfig(dir: string, overrides: Partial<MemoryFilesConfig> = {}): MemoryFilesConfig {
  counter += 1
  return {
    memoryPath: join(dir, `case-${counter}`, 'MEMORY.md'),
    userPath: join(dir, `case-${counter}`, 'USER.md'),
    memoryCharLimit: DEFAULT_MEMORY_CHAR_LIMIT,
    userCharLimit: DEFAULT_USER_CHAR_LIMIT,
    compactTriggerRatio: DEFAULT_COMPACT_TRIGGER_RATIO,
    ...overrides,
  }
}

/**
 * Runs writer processes to their end, SIGKILLing worker `w` at its `killAfter.get(w)`-th printed line (from
 * inside the data handler: the writer is already in its next write), and checks that the killed ones died
 * of the signal and the others exited 0. A child still running when this fails is killed.
 */
export async function runKillingWriters(
  children: readonly Child[],
  killAfter: ReadonlyMap<number, number>,
  exitTimeoutMs: number,
): Promise<void> {
  try {
    const killed = children.map((child, worker) => {
      const after = killAfter.get(worker)
      if (after === undefined) return Promise.resolve()
      let writes = 0
      return new Promise<void>((resolve) => {
        child.onLine(() => {
          if (++writes === after) {
            child.proc.kill('SIGKILL')
            resolve()
          }
        })
        child.exited.then(() => resolve())
      })
    })
    await Promise.all(killed)
    const exits = await Promise.all(children.map((child) => exitWithin(child, exitTimeoutMs)))
    for (const [worker, exit] of exits.entries()) {
      if (killAfter.has(worker)) expect(exit.signal, children[worker]?.describe()).toBe('SIGKILL')
      else expect(exit, children[worker]?.describe()).toEqual({ code: 0, signal: null })
    }
  } finally {
    for (const child of children) killIfRunning(child)
  }
}
