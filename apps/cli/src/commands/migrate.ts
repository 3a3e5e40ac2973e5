import { resolve } from 'node:path'
import { maskUrl } from '@engram/agent'
import { EngramError, openStore, type SchemaMigrations, type Store } from '@engram/core'
import type { Command } from 'commander'
import { type Context, createContext, localDatabasePath, requireDatabase } from '../context.ts'
import { UsageError } from '../errors.ts'
import type { Io } from '../output.ts'
import { startCounter } from '../progress.ts'
import { storeSessions } from '../transfer/document.ts'
import { type RestoreResult, restoreSessions } from '../transfer/restore.ts'

/** What migrate did to the schema, in words. */
function schemaLine(database: string, { before, after }: SchemaMigrations): string {
  if (before === 0) return `Created the database ${database} (schema version ${after}).`
  if (before < after)
    return `Migrated the database ${database} from schema version ${before} to ${after} (${after - before} migration(s) applied).`
  return `The database ${database} is up to date (schema version ${after}).`
}

/** The same database named twice (one file by two paths, or one url): a copy onto itself is refused. */
function sameDatabase(from: string, to: string, cwd: string): boolean {
  const [a, b] = [localDatabasePath(from), localDatabasePath(to)]
  if (a !== null && b !== null) return resolve(cwd, a) === resolve(cwd, b)
  return from === to
}

/**
 * Opens the store to copy from: it must exist (nothing is created at a mistyped path), and an error
 * opening it says it is the source, not --db, that failed.
 */
async function openSource(from: string, cwd: string): Promise<Store> {
  requireDatabase(from, cwd, '--from')
  const path = localDatabasePath(from)
  try {
    // The source is read, never made: a PostgreSQL schema that is not there is refused, not created.
    return await openStore({ url: path === null ? from : resolve(cwd, path), create: false })
  } catch (error) {
    if (!(error instanceof EngramError)) throw error
    throw new EngramError(error.code, `The store to copy from (--from ${maskUrl(from)}): ${error.message}`, {
      cause: error,
    })
  }
}

/**
 * `engram migrate [--from <path|url>]`: opening the store applies any pending migration, and this says
 * which; with --from, every session of another store (another engine too) is copied in, whole.
 */
export function registerMigrate(program: Command, io: Io): void {
  program
    .command('migrate')
    .description('create the database or bring its schema up to date; --from copies another store into it')
    .option(
      '--from <path|url>',
      'copy every session of this store (an SQLite file or a postgres:// url) into --db',
    )
    .action(async (_options, command: Command) => {
      const ctx = createContext<{ from?: string }>(command, io)
      const url = ctx.config().storage.url ?? ''
      const database = maskUrl(url)
      const from = ctx.options.from
      if (from !== undefined && sameDatabase(from, url, io.cwd))
        throw new UsageError(
          `--from and --db name the same database (${maskUrl(from)}). Give --db the store to copy into.`,
        )
      // The source opens first: a source that fails leaves --db as it was (not even created).
      const source = from === undefined ? undefined : await openSource(from, io.cwd)
      const result = await ctx
        .withStore(async (target) => ({
          schemaVersion: target.migrations,
          copy: source === undefined ? undefined : await copyStore(ctx, source, target),
        }))
        .finally(() => source?.close())
      if (!result.copy) {
        if (ctx.out.json)
          return ctx.out.printJson({ migrated: true, database, schemaVersion: result.schemaVersion })
        return ctx.out.line(schemaLine(database, result.schemaVersion))
      }
      const { imported, skipped, messages, warnings } = result.copy
      const shown = maskUrl(from as string)
      if (ctx.out.json)
        return ctx.out.printJson({
          migrated: true,
          database,
          schemaVersion: result.schemaVersion,
          from: shown,
          copied: imported,
          skipped,
          messages,
          warnings,
        })
      ctx.out.line(schemaLine(database, result.schemaVersion))
      ctx.out.line(
        `Copied ${imported} session(s) and ${messages} messages from ${shown}; ${skipped} already present, skipped.`,
      )
      for (const warning of warnings.slice(0, 20)) ctx.out.note(`  ! ${warning}`)
    })
}

/** Every session of `source`, parents first, written whole into `target`; a counter on a TTY. */
async function copyStore(ctx: Context, source: Store, target: Store): Promise<RestoreResult> {
  const counter = startCounter(ctx.io, ctx.out.json, 'Copying')
  try {
    return await restoreSessions(target, storeSessions(source), counter)
  } finally {
    counter.stop()
  }
}
