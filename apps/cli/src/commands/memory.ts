import { createInterface } from 'node:readline'
import { MemoryFiles, type MemoryOperation, MemoryRefusal, type MemoryTarget } from '@engram/agent'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { UsageError } from '../errors.ts'
import { memoryPath, refusalForPeople } from '../memory-check.ts'
import { formatInt, type Io, type Output } from '../output.ts'

const TARGETS: MemoryTarget[] = ['memory', 'user']
const LABEL: Record<MemoryTarget, string> = {
  memory: 'MEMORY.md (agent notes)',
  user: 'USER.md (user profile)',
}

function targetOf(value: string | undefined, required: boolean): MemoryTarget[] {
  if (value === undefined) {
    if (required) throw new UsageError('--target is required for a change: --target memory or --target user.')
    return TARGETS
  }
  if (!TARGETS.includes(value as MemoryTarget)) {
    throw new UsageError(`--target must be memory or user (got ${JSON.stringify(value)}).`)
  }
  return [value as MemoryTarget]
}

function usageLine(out: Output, chars: number, limit: number): string {
  const ratio = chars / limit
  const text = `[${Math.round(ratio * 100)}% — ${formatInt(chars)}/${formatInt(limit)} chars]`
  return ratio > 0.9 ? out.color.red(text) : ratio > 0.7 ? out.color.yellow(text) : out.color.dim(text)
}

function operationOf(action: string, args: string[]): MemoryOperation {
  const [first, second] = args
  if (action === 'add' && first !== undefined && args.length === 1) return { action, content: first }
  if (action === 'replace' && first !== undefined && second !== undefined && args.length === 2) {
    return { action, old_text: first, content: second }
  }
  if (action === 'remove' && first !== undefined && args.length === 1) return { action, old_text: first }
  const usage = {
    add: 'add "<entry>"',
    replace: 'replace "<unique part of the old entry>" "<new entry>"',
    remove: 'remove "<unique part of the entry>"',
  }
  const known = usage[action as keyof typeof usage]
  throw new UsageError(
    known
      ? `Usage: engram memory ${known} --target memory|user.`
      : `Unknown memory action ${JSON.stringify(action)}: use show (or list), add, replace or remove.`,
  )
}

/** The memory files as `engram memory` and the REPL's /memory print them: usage header, numbered entries. */
export function printMemoryFiles(
  out: Output,
  files: { target: MemoryTarget; entries: string[]; chars: number; limit: number }[],
): void {
  for (const file of files) {
    out.line(`${out.color.bold(LABEL[file.target])} ${usageLine(out, file.chars, file.limit)}`)
    if (file.entries.length === 0) out.line(out.color.dim('  (empty)'))
    for (const [i, entry] of file.entries.entries()) out.line(`  ${out.color.dim(`${i + 1}.`)} ${entry}`)
    out.line()
  }
}

/** Both memory files, read. */
export async function readMemoryFiles(files: MemoryFiles) {
  const shown = []
  for (const target of TARGETS) shown.push({ target, ...(await files.read(target)) })
  return shown
}

/**
 * Asks the person at the command line to confirm saving an entry the threat scan refused: the reason on
 * stderr, then a line read from stdin that must be `yes` (so `echo yes | engram memory add --allow …` works
 * in a script). Anything else, or no input, writes nothing.
 */
async function confirmAllow(io: Io, out: Output, reason: string): Promise<void> {
  out.note(`${reason}\nSave it anyway? It will reach future system prompts as written. Type yes to confirm: `)
  const lines = createInterface({ input: io.stdin, terminal: false })
  const answer = await new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve)
    lines.once('close', () => resolve(undefined))
  })
  lines.close()
  if (answer?.trim().toLowerCase() !== 'yes') {
    throw new UsageError('Not confirmed (the answer was not "yes"), so nothing was written.')
  }
}

/**
 * `engram memory [show|add|replace|remove] --target memory|user`: the curated memory files, changed through
 * the same locked, scanned, capped writes the agent's memory tool uses.
 */
export function registerMemory(program: Command, io: Io): void {
  program
    .command('memory')
    .description('show or edit MEMORY.md and USER.md (the same checks as the agent: cap, threat scan, lock)')
    .argument('[action]', 'show (or list), add, replace or remove', 'show')
    .argument('[text...]', 'the entry (add), the old part and the new entry (replace), the old part (remove)')
    .option('--target <target>', 'memory (MEMORY.md) or user (USER.md)')
    .option(
      '--allow',
      'save an entry the threat scan refuses, after you confirm (your own note, never the agent)',
    )
    .action(async (action: string, text: string[], _options, command: Command) => {
      const ctx = createContext<{ target?: string; allow?: boolean }>(command, io)
      const config = ctx.config().memoryFiles
      const files = new MemoryFiles(config)
      const { out } = ctx
      // `list` is what people type for show; either lists both files unless --target names one.
      if (action === 'show' || action === 'list') {
        const shown = []
        for (const target of targetOf(ctx.options.target, false)) {
          const read = await files.read(target).catch((error) => {
            throw refusalForPeople(error, target, memoryPath(config, target))
          })
          shown.push({ target, ...read })
        }
        if (out.json) return out.printJson({ files: shown })
        printMemoryFiles(out, shown)
        return
      }
      const operation = operationOf(action, text)
      const [target] = targetOf(ctx.options.target, true) as [MemoryTarget]
      const result = await files
        .apply(target, [operation])
        .catch(async (error) => {
          if (!(ctx.options.allow && error instanceof MemoryRefusal && error.reason === 'threat')) throw error
          await confirmAllow(io, out, error.message)
          return files.apply(target, [operation], { allowThreats: true })
        })
        .catch((error) => {
          throw refusalForPeople(error, target, memoryPath(config, target), operation)
        })
      if (out.json) return out.printJson(result)
      out.line(`${result.changed ? out.color.green('✓') : '·'} ${result.summary}`)
    })
}
