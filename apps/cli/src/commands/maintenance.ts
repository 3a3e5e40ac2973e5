import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { wholeOption } from '../errors.ts'
import { type Io, relativeTime, shortIds } from '../output.ts'
import { withSpinner } from '../progress.ts'

interface PruneOptions {
  olderThan: string
  dryRun?: boolean
  source?: string
  vacuum?: boolean
}

const sessions = (n: number) => `${n} ${n === 1 ? 'session' : 'sessions'}`
const ago = (days: number) => `more than ${days} ${days === 1 ? 'day' : 'days'} ago`

/** `engram prune --older-than <days> [--dry-run] [--source s] [--vacuum]`: ended sessions only. */
export function registerPrune(program: Command, io: Io): void {
  program
    .command('prune')
    .description('delete ended sessions older than N days (open sessions and their children are kept)')
    .requiredOption('--older-than <days>', 'sessions that ended more than this many days ago')
    .option('--dry-run', 'list what would be deleted, delete nothing')
    .option('--source <source>', 'only sessions from this source')
    .option('--vacuum', 'reclaim the freed space afterwards (VACUUM)')
    .action(async (_options, command: Command) => {
      const ctx = createContext<PruneOptions>(command, io)
      const { dryRun, source, vacuum } = ctx.options
      const days = wholeOption(ctx.options.olderThan, '--older-than', 30)
      const { out } = ctx
      if (dryRun) {
        const preview = await ctx.withStore(
          (store) => store.pruneSessions({ olderThanDays: days, source, dryRun: true }),
          { create: false },
        )
        if (out.json) return out.printJson({ dryRun: true, olderThanDays: days, ...preview })
        if (preview.count === 0) {
          out.line(
            `No session${source ? ` from ${source}` : ''} ended ${ago(days)}: nothing would be deleted.`,
          )
          return
        }
        out.line(`Would delete ${sessions(preview.count)} that ended ${ago(days)}:`)
        const short = shortIds(preview.sessions.map((s) => s.id))
        out.table(
          ['ID', 'ENDED', 'SOURCE', 'MSGS'],
          preview.sessions.map((s) => [
            short(s.id),
            relativeTime(s.endedAt as number),
            s.source,
            String(s.messageCount),
          ]),
        )
        return
      }
      const pruned = await ctx.withStore((store) =>
        withSpinner(io, out.json, 'Pruning', async () => {
          const count = await store.pruneSessions({ olderThanDays: days, source })
          if (vacuum) await store.vacuum()
          return count
        }),
      )
      if (out.json)
        return out.printJson({ dryRun: false, olderThanDays: days, count: pruned, vacuumed: Boolean(vacuum) })
      out.line(`Deleted ${sessions(pruned)} that ended ${ago(days)}${vacuum ? ', and vacuumed' : ''}.`)
    })
}

/** `engram reindex`: recompute the search text of every row and rebuild both FTS5 indexes. */
export function registerReindex(program: Command, io: Io): void {
  program
    .command('reindex')
    .description('rebuild the full-text search index from the messages and episodes')
    .action(async (_options, command: Command) => {
      const ctx = createContext(command, io)
      const started = Date.now()
      const report = await ctx.withStore((store) =>
        withSpinner(io, ctx.out.json, 'Rebuilding the search index', async () => {
          await store.rebuildSearchIndex()
          return store.checkIntegrity()
        }),
      )
      const result = { rebuilt: true, ms: Date.now() - started, searchIndex: report.searchIndex }
      if (ctx.out.json) return ctx.out.printJson(result)
      ctx.out.line(
        `Search index rebuilt in ${result.ms} ms (messages: ${report.searchIndex.messages}, episodes: ${report.searchIndex.episodes}).`,
      )
    })
}
