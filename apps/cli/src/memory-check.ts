import { existsSync, readFileSync } from 'node:fs'
import type { MemoryFilesConfig } from '@engram/agent'

interface Check {
  name: string
  ok: boolean
  detail: string
  fix?: string
}

function checkFile(name: string, path: string, limit: number): Check {
  if (!existsSync(path)) return { name, ok: true, detail: `${path} not created yet (0/${limit} chars)` }
  const chars = [...readFileSync(path, 'utf8')].length
  const ok = chars <= limit
  return {
    name,
    ok,
    detail: `${path}: ${chars.toLocaleString('en-US')}/${limit.toLocaleString('en-US')} chars`,
    ...(ok
      ? {}
      : {
          fix: `consolidate it: \`engram memory show --target ${name === 'MEMORY.md' ? 'memory' : 'user'}\`, then replace or remove entries`,
        }),
  }
}

/** The two memory files exist or not, and stay within their caps. */
export function checkMemoryFiles(config: MemoryFilesConfig): Check[] {
  return [
    checkFile('MEMORY.md', config.memoryPath, config.memoryCharLimit),
    checkFile('USER.md', config.userPath, config.userCharLimit),
  ]
}
