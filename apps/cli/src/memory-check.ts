import { MemoryFiles, type MemoryFilesConfig, type MemoryTarget } from '@engram/agent'
import { errorLine } from './errors.ts'

/** One line of `engram doctor`: what was checked, the verdict, and the fix when it failed. */
export interface Check {
  name: string
  ok: boolean
  detail: string
  fix?: string
}

/** Both memory files parse and stay within their caps. */
export async function checkMemoryFiles(config: MemoryFilesConfig): Promise<Check[]> {
  const files = new MemoryFiles(config)
  const checks: Check[] = []
  for (const target of ['memory', 'user'] as MemoryTarget[]) {
    const name = target === 'memory' ? 'MEMORY.md' : 'USER.md'
    const path = target === 'memory' ? config.memoryPath : config.userPath
    try {
      const { entries, chars, limit } = await files.read(target)
      const ok = chars <= limit
      checks.push({
        name,
        ok,
        detail: `${path}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, ${chars.toLocaleString('en-US')}/${limit.toLocaleString('en-US')} chars`,
        ...(ok
          ? {}
          : {
              fix: `consolidate it: \`engram memory show --target ${target}\`, then replace or remove entries`,
            }),
      })
    } catch (error) {
      checks.push({
        name,
        ok: false,
        detail: errorLine(error),
        fix: `fix ${path} by hand (entries are separated by a line with §)`,
      })
    }
  }
  return checks
}
