import { adoptSessions, listUnownedSessions, MAX_PAGE_LIMIT } from '@engram/core'
import { parseScope } from '@engram/mcp/config'
import type { Command } from 'commander'
import stringWidth from 'string-width'
import { createContext } from '../context.ts'
import { UsageError, wholeOption } from '../errors.ts'
import { fit, formatInt, type Io, relativeTime, shortIds } from '../output.ts'

interface ListOptions {
  source?: string
  user?: string
  limit?: string
  unowned?: boolean
}

const HEAD = ['ID', 'STARTED', 'SOURCE', 'MODEL', 'MSGS', 'TOKENS', 'TITLE OR FIRST MESSAGE']

/** The narrowest the title column gets, whatever the terminal's width. */
const MIN_TITLE = 20

/** What the filters were, for "No sessions … yet": ` of source "demo" for user "u1"`. */
function filterText({ source, user }: ListOptions): string {
  return `${source === undefined ? '' : ` of source ${JSON.stringify(source)}`}${user === undefined ? '' : ` of user ${JSON.stringify(user)}`}`
}

/** `engram sessions`: the newest sessions as a table, or `{ sessions: Session[] }` with --json. */
export function registerSessions(program: Command, io: Io): void {
  const sessionsCommand = program
    .command('sessions')
    .description('list sessions, newest first')
    .option('--source <source>', 'only sessions from this source (cli, telegram, hermes, ...)')
    .option('--user <id>', 'only sessions of this user')
    .option('--limit <n>', `how many to list (1 to ${MAX_PAGE_LIMIT})`, '20')
    .option('--unowned', 'only sessions without a user (see `engram sessions adopt`)')
    .action(async (_options, command: Command) => {
      const ctx = createContext<ListOptions>(command, io)
      const { source, user, unowned } = ctx.options
      if (unowned && (source !== undefined || user !== undefined))
        throw new UsageError('--unowned lists every session without a user: drop --source and --user.')
      const limit = wholeOption(ctx.options.limit, '--limit', 20, { max: MAX_PAGE_LIMIT })
      const { out } = ctx
      const { sessions, previews } = await ctx.withStore(
        async (store) => {
          const sessions = unowned
            ? await listUnownedSessions(store, limit)
            : await store.listSessions({ source, userId: user, limit })
          // Untitled sessions are shown by their first question (human output only; one read per session).
          const previews = new Map<string, string>()
          if (!out.json) {
            for (const s of sessions.filter((s) => !s.title && s.messageCount > 0)) {
              const first = (await store.getMessages(s.id)).find((m) => m.role === 'user')
              if (typeof first?.content === 'string') previews.set(s.id, first.content)
            }
          }
          return { sessions, previews }
        },
        { create: false },
      )
      if (out.json) return out.printJson({ sessions })
      if (sessions.length === 0) {
        const filtered = source !== undefined || user !== undefined
        if (unowned) return out.line('Every session has a user.')
        return out.line(
          filtered
            ? `No sessions${filterText(ctx.options)}. List them all with \`engram sessions\`.`
            : 'No sessions yet. Start one with `engram chat` or `engram demo`.',
        )
      }
      const short = shortIds(sessions.map((s) => s.id))
      const rows = sessions.map((s) => [
        out.color.cyan(short(s.id)) + (s.parentSessionId ? out.color.dim(' ↳') : ''),
        relativeTime(s.startedAt),
        s.source,
        fit(s.model ?? '—', 18),
        formatInt(s.messageCount),
        formatInt(s.inputTokens + s.outputTokens),
      ])
      // The title takes what the terminal has left after the other columns and their gaps.
      const used = HEAD.slice(0, -1).map((head, column) =>
        Math.max(stringWidth(head), ...rows.map((row) => stringWidth(row[column] as string))),
      )
      const left = out.width - used.reduce((n, w) => n + w + 2, 0)
      const titleWidth = Math.max(MIN_TITLE, left)
      out.table(
        HEAD,
        sessions.map((s, i) => [
          ...(rows[i] as string[]),
          s.title ? fit(s.title, titleWidth) : out.color.dim(fit(previews.get(s.id) ?? '', titleWidth)),
        ]),
        { align: ['left', 'left', 'left', 'left', 'right', 'right', 'left'] },
      )
    })

  sessionsCommand
    .command('adopt')
    .description(
      'give the sessions stored without a user to --user <id> (all of them, or those of --session)',
    )
    // `--user <id>` is the `sessions` command's own option, read here through the options of both.
    .option(
      '--session <id...>',
      'only these sessions (full ids, as `engram sessions --unowned --json` prints)',
    )
    .action(async (_options, command: Command) => {
      const ctx = createContext<{ user?: string; session?: string[] }>(command, io)
      if (!ctx.options.user)
        throw new UsageError(
          "Name the user the sessions become: `engram sessions adopt --user <id>` (yours is ENGRAM_USER, the config's user, or the OS account name).",
        )
      const user = parseScope(ctx.options.user, undefined).user
      const ids = ctx.options.session
      const adopted = await ctx.withStore((store) => adoptSessions(store, user, ids ? { ids } : {}), {
        create: false,
      })
      if (ctx.out.json) return ctx.out.printJson({ user, adopted })
      ctx.out.line(
        adopted.length === 0
          ? `No session without a user${ids ? ' among those named' : ''}: nothing changed.`
          : `${formatInt(adopted.length)} session${adopted.length === 1 ? '' : 's'} now belong${adopted.length === 1 ? 's' : ''} to user ${JSON.stringify(user)}.`,
      )
    })
}
