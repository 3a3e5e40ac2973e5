import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { EngramError } from '@engram/core'
import type { Command } from 'commander'
import { type Context, createContext } from '../context.ts'
import { UsageError } from '../errors.ts'
import type { Io, Output } from '../output.ts'
import { barOfSessions, type Progress, startCounter, startProgress } from '../progress.ts'
import { findSession } from '../sessions.ts'
import { type ExportedSession, exportChain, parentsFirst, storeSessions } from '../transfer/document.ts'
import { FORMATS, type Format, isJsonlHeader, parseExport, serialize } from '../transfer/formats.ts'
import { openHermes } from '../transfer/hermes.ts'
import { firstLine, readJsonlSessions, writeJsonl, writeJsonlFile } from '../transfer/jsonl-file.ts'
import { type RestoreResult, restoreSessions } from '../transfer/restore.ts'

/** Why a file could not be read or written, in words: `no such file`, `it is a folder`, the system's message. */
function fileReason(error: unknown): string {
  const code = (error as { code?: string }).code
  if (code === 'ENOENT') return 'no such file or folder'
  if (code === 'EISDIR') return 'it is a folder'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  return (error as Error).message.split('\n')[0] as string
}

/** Why a file to import cannot be read, and what to give instead. */
function fileError(path: string, cause: unknown): never {
  throw new EngramError(
    'INVALID_ARGUMENT',
    `Cannot read ${path} (${fileReason(cause)}). Give the path of a file written by \`engram export\`.`,
    { cause },
  )
}

/** The largest JSON or Markdown export read (whole, as one text); JSONL is read a line at a time. */
const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024

/** The text of a file to import, or an error naming why it cannot be read and what to give instead. */
function readImportFile(path: string): string {
  try {
    if (statSync(path).size > MAX_DOCUMENT_BYTES)
      throw new EngramError(
        'INVALID_ARGUMENT',
        `${path} is over ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, the most a JSON or Markdown export may be (it is read whole). Export the sessions as JSONL, which is read a line at a time whatever its size: \`engram export --all -o sessions.jsonl\`.`,
      )
    return readFileSync(path, 'utf8')
  } catch (cause) {
    if (cause instanceof EngramError) throw cause
    fileError(path, cause)
  }
}

/** Refuses a folder as the export's target: it needs a file name. */
function refuseFolder(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${path} is a folder. Give --output a file name, e.g. ${join(path, 'session.json')}.`,
    )
  }
}

/** A failed write of the export to `path` as an error naming why, with the fix; store errors pass as they are. */
function writeError(path: string, cause: unknown): unknown {
  if (cause instanceof EngramError || typeof (cause as { code?: unknown })?.code !== 'string') return cause
  return new EngramError(
    'INVALID_ARGUMENT',
    `Cannot write the export to ${path} (${fileReason(cause)}). Give --output a file in a folder that exists and that you can write to.`,
    { cause },
  )
}

/**
 * Writes next to the target and renames, so an interrupted export never leaves half a file; a failed
 * write removes its temporary file and says why, with the fix.
 */
function writeAtomically(path: string, text: string): void {
  refuseFolder(path)
  const temp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(temp, text)
    renameSync(temp, path)
  } catch (cause) {
    rmSync(temp, { force: true })
    throw writeError(path, cause)
  }
}

interface ExportOptions {
  format: string
  output?: string
  all?: boolean
}

/**
 * `engram export <id> --format json|jsonl|md [--output file]`: the session's whole compression chain;
 * `engram export --all [--output file]`: every session of the store, streamed as JSONL.
 */
export function registerExport(program: Command, io: Io): void {
  program
    .command('export')
    .description('export a session with its lineage, messages, tool calls, episodes and usage (or --all)')
    .argument('[id]', 'a session id, a unique prefix of one, or "latest"')
    .option('--format <format>', `one of ${FORMATS.join(', ')} (--all: jsonl)`)
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option(
      '--all',
      'every session of the store, parents first, as JSONL (to copy a store, see migrate --from)',
    )
    .action(async (reference: string | undefined, _options, command: Command) => {
      const ctx = createContext<ExportOptions>(command, io)
      const format = (ctx.options.format ?? (ctx.options.all ? 'jsonl' : 'json')) as Format
      if (!FORMATS.includes(format)) {
        throw new UsageError(
          `--format must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(ctx.options.format)}).`,
        )
      }
      const output = ctx.options.output === undefined ? undefined : resolve(io.cwd, ctx.options.output)
      if (ctx.options.all) {
        if (reference !== undefined)
          throw new UsageError('Give either a session to export or --all, not both.')
        if (format !== 'jsonl')
          throw new UsageError(
            `--all writes JSONL, which is read back one session at a time (got --format ${format}). Drop --format, or export one session in ${format}.`,
          )
        return exportAll(ctx, output)
      }
      if (reference === undefined)
        throw new UsageError(
          'Say what to export: `engram export <id>` (a session and its lineage; `latest` for the newest) or `engram export --all`.',
        )
      // A bar only when the export goes to a file: on stdout it would mix with the export itself.
      let progress: Progress | undefined
      const document = await ctx
        .withStore(
          async (store) =>
            exportChain(store, (await findSession(store, reference)).id, {
              onLineage: (lineage) => {
                const total = lineage.reduce((n, s) => n + s.messageCount, 0)
                if (output) progress = startProgress(io, ctx.out.json, 'Exporting', total)
              },
              onSession: (session) => progress?.increment(session.messageCount),
            }),
          { create: false },
        )
        .finally(() => progress?.stop())
      const text = serialize(document, format)
      const messages = document.sessions.reduce((n, s) => n + s.messages.length, 0)
      if (!output) return void io.stdout.write(text)
      writeAtomically(output, text)
      const summary = { file: output, format, sessions: document.sessions.length, messages }
      if (ctx.out.json) return ctx.out.printJson(summary)
      ctx.out.line(
        `Exported ${summary.sessions} session(s), ${messages} messages to ${summary.file} (${format}).`,
      )
    })
}

/** `export --all`: the whole store streamed into the file (atomically) or onto stdout, a counter on a TTY. */
async function exportAll(ctx: Context<ExportOptions>, output: string | undefined): Promise<void> {
  const { io, out } = ctx
  if (output) refuseFolder(output)
  // On stdout the counter would be drawn on the terminal the export is piped from: stderr, as always.
  const counter = startCounter(io, out.json, 'Exporting')
  let messages = 0
  const onSession = (exported: ExportedSession) => {
    messages += exported.messages.length
    counter.session(exported.messages.length)
  }
  const sessions = await ctx
    .withStore(
      async (store) => {
        const all = storeSessions(store)
        if (!output) return writeJsonl(io.stdout, all, onSession)
        return writeJsonlFile(output, all, onSession).catch((cause) => {
          throw writeError(output, cause)
        })
      },
      { create: false },
    )
    .finally(() => counter.stop())
  if (!output) return
  const summary = { file: output, format: 'jsonl', sessions, messages }
  if (out.json) return out.printJson(summary)
  out.line(`Exported ${sessions} session(s), ${messages} messages to ${output} (jsonl).`)
}

function printRestore(out: Output, result: RestoreResult & Record<string, unknown>, what: string): void {
  if (out.json) {
    out.printJson(result)
    return
  }
  out.line(
    `Imported ${result.imported} session(s) and ${result.messages} messages from ${what}; ${result.skipped} already present, skipped.`,
  )
  for (const warning of result.warnings.slice(0, 20)) out.note(`  ! ${warning}`)
  if (result.warnings.length > 20) out.note(`  ! … and ${result.warnings.length - 20} more`)
}

/** `engram import <file>` (an Engram export) or `engram import --from-hermes <state.db>`. */
export function registerImport(program: Command, io: Io): void {
  program
    .command('import')
    .description('import an `engram export` file, or a Hermes Agent state.db with --from-hermes (read-only)')
    .argument('[file]', 'a file written by engram export (json, jsonl or md)')
    .option('--from-hermes <state.db>', "import Hermes Agent's database; the file is opened read-only")
    .action(async (file: string | undefined, _options, command: Command) => {
      const ctx = createContext<{ fromHermes?: string }>(command, io)
      const hermesPath = ctx.options.fromHermes
      if (file !== undefined && hermesPath !== undefined) {
        throw new UsageError(
          'Give either a file written by `engram export` or --from-hermes <state.db>, not both.',
        )
      }
      if (file === undefined && hermesPath === undefined) {
        throw new UsageError(
          'Say what to import: `engram import <file>` (a file written by `engram export`) or `engram import --from-hermes <state.db>` (usually ~/.hermes/state.db).',
        )
      }
      if (hermesPath) return importHermes(ctx.out, io, resolve(io.cwd, hermesPath), ctx.withStore)
      const path = resolve(io.cwd, file as string)
      const result = isJsonlHeader(await firstLine(path).catch((cause) => fileError(path, cause)))
        ? await importStream(ctx, path, file as string)
        : await importDocument(ctx, path, file as string)
      printRestore(ctx.out, { ...result, file }, file as string)
    })
}

/** A JSONL export, read and written one session at a time (any size), a counter on a terminal. */
async function importStream(ctx: Context, path: string, file: string): Promise<RestoreResult> {
  const counter = startCounter(ctx.io, ctx.out.json, 'Importing')
  return ctx
    .withStore((store) => restoreSessions(store, readJsonlSessions(path, file), counter))
    .finally(() => counter.stop())
}

/** A JSON or Markdown export: parsed whole, then written parents first under a bar. */
async function importDocument(ctx: Context, path: string, file: string): Promise<RestoreResult> {
  const document = parseExport(readImportFile(path), file)
  const total = document.sessions.reduce((n, s) => n + Math.max(1, s.messages.length), 0)
  const progress = startProgress(ctx.io, ctx.out.json, 'Importing', total)
  return ctx
    .withStore((store) => restoreSessions(store, parentsFirst(document.sessions), barOfSessions(progress)))
    .finally(() => progress.stop())
}

async function importHermes(
  out: Output,
  io: Io,
  path: string,
  withStore: ReturnType<typeof createContext>['withStore'],
): Promise<void> {
  const hermes = openHermes(path)
  const total = hermes.sessions.reduce((n, s) => n + Math.max(1, s.session.messageCount), 0)
  const progress = startProgress(io, out.json, 'Importing from Hermes', total)
  const bar = barOfSessions(progress)
  try {
    const result = await withStore(async (store) => {
      const sum: RestoreResult = { imported: 0, skipped: 0, messages: 0, warnings: [...hermes.warnings] }
      for (const exported of parentsFirst(hermes.sessions)) {
        if (await store.getSession(exported.session.id)) {
          sum.skipped++
          bar.session(exported.session.messageCount)
          continue
        }
        const { messages, usage, skipped } = hermes.load(exported)
        const one = await restoreSessions(store, [{ ...exported, messages, usage }], bar)
        sum.imported += one.imported
        sum.skipped += one.skipped
        sum.messages += one.messages
        sum.warnings.push(...skipped, ...one.warnings)
      }
      return sum
    })
    printRestore(
      out,
      { ...result, source: path, hermesSchemaVersion: hermes.schemaVersion },
      `Hermes ${path}`,
    )
  } finally {
    progress.stop()
    hermes.close()
  }
}
