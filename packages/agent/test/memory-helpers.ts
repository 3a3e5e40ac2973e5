import { join } from 'node:path'
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
