import {
  MemoryFiles,
  type MemoryFilesConfig,
  type MemoryOperation,
  MemoryRefusal,
  type MemoryTarget,
} from '@engram/agent'
import { EngramError } from '@engram/core'
import { errorLine } from './errors.ts'

/** One line of `engram doctor`: what was checked, the verdict, and the fix when it failed. */
export interface Check {
  name: string
  ok: boolean
  /** Passed, but something the user will notice is wrong (doctor marks it ! and exits 0). */
  warn?: boolean
  detail: string
  fix?: string
}

const fileName = (target: MemoryTarget) => (target === 'memory' ? 'MEMORY.md' : 'USER.md')
export const memoryPath = (config: MemoryFilesConfig, target: MemoryTarget) =>
  target === 'memory' ? config.memoryPath : config.userPath

/**
 * A memory refusal in words for a person at the command line. The memory module words its refusals for
 * the model (which operation, what to quote, when to retry); here they name the file, the command to look
 * at it and what to change. Anything else passes through.
 */
export function refusalForPeople(
  error: unknown,
  target: MemoryTarget,
  path: string,
  operation?: MemoryOperation,
): unknown {
  if (!(error instanceof MemoryRefusal)) return error
  const file = fileName(target)
  const show = `\`engram memory show --target ${target}\``
  const part = operation && 'old_text' in operation ? JSON.stringify(operation.old_text) : 'that text'
  const say = (message: string) => new EngramError(error.code, message, { cause: error })
  switch (error.reason) {
    case 'unparseable':
      return say(
        `${path} does not parse, so it was read as nothing and left as it is. Fix it by hand (entries are separated by a line holding §), then run the command again; \`engram doctor\` checks it.`,
      )
    case 'not_found':
      return say(
        `No entry in ${file} contains ${part}. See the entries with ${show} and give part of one as it is written.`,
      )
    case 'ambiguous':
      return say(
        `${part} is part of several entries in ${file}. Give a longer part of the one you mean (see them with ${show}).`,
      )
    case 'over_cap':
      return say(
        `That would take ${file} over its cap, so nothing was written. Make room first: shorten or remove entries with \`engram memory replace\` or \`engram memory remove\` (see them with ${show}), then add it again.\n${error.message}`,
      )
    case 'threat': {
      // The printed command is for a shell: single quotes, so nothing in the entry expands when pasted.
      const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`
      const entry = operation && 'content' in operation ? quote(operation.content) : "'<entry>'"
      const verb = operation && 'old_text' in operation ? `replace ${quote(operation.old_text)}` : 'add'
      return say(
        `${error.message}\nIf this is your own note and you mean it (a deploy command you run yourself, a quoted example), save it anyway with \`engram memory ${verb} --allow --target ${target} ${entry}\`: it asks you to confirm, then keeps the entry in ${file} unscanned (its hash goes to ${file}.allowed). The agent's memory tool cannot do this.`,
      )
    }
    default:
      return error
  }
}

/** Both memory files parse and stay within their caps. */
export async function checkMemoryFiles(config: MemoryFilesConfig): Promise<Check[]> {
  const files = new MemoryFiles(config)
  const checks: Check[] = []
  for (const target of ['memory', 'user'] as MemoryTarget[]) {
    const name = fileName(target)
    const path = memoryPath(config, target)
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
        detail: errorLine(refusalForPeople(error, target, path)),
        fix: `fix ${path} by hand (entries are separated by a line with §)`,
      })
    }
  }
  return checks
}
