import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { positiveInt } from '../errors.ts'
import { fit, formatInt, type Io, relativeTime, shortId } from '../output.ts'

interface ListOptions {
  source?: string
  user?: string
  limit?: string
}

/** `engram sessions`: the newest sessions as a table, or `{ sessions: Session[] }` with --json. */
export function registerSessions(program: Command, io: Io): void {
  program
    .command('sessions')
    .description('list sessions, newest first')
    .option('--source <source>', 'only sessions from this source (cli, telegram, hermes, ...)')
    .option('--user <id>', 'only sessions of this user')
    .option('--limit <n>', 'how many to list', '20')
    .action(async (_options, command: Command) => {
      const ctx = createContext<ListOptions>(command, io)
      const { source, user, limit } = ctx.options
      const { out } = ctx
      const { sessions, previews } = await ctx.withStore(async (store) => {
        const sessions = await store.listSessions({
          source,
          userId: user,
          limit: positiveInt(limit, '--limit', 20),
        })
        // Untitled sessions are shown by their first question (human output only; one read per session).
        const previews = new Map<string, string>()
        if (!out.json) {
          for (const s of sessions.filter((s) => !s.title && s.messageCount > 0)) {
            const first = (await store.getMessages(s.id)).find((m) => m.role === 'user')
            if (typeof first?.content === 'string') previews.set(s.id, first.content)
          }
        }
        return { sessions, previews }
      })
      if (out.json) return out.printJson({ sessions })
      if (sessions.length === 0)
        return out.line('No sessions yet. Start one with `engram chat` or `engram demo`.')
      out.table(
        ['ID', 'STARTED', 'SOURCE', 'MODEL', 'MSGS', 'TOKENS', 'TITLE OR FIRST MESSAGE'],
        sessions.map((s) => [
          out.color.cyan(shortId(s.id)) + (s.parentSessionId ? out.color.dim(' ↳') : ''),
          relativeTime(s.startedAt),
          s.source,
          fit(s.model ?? '—', 18),
          formatInt(s.messageCount),
          formatInt(s.inputTokens + s.outputTokens),
          s.title ? fit(s.title, 40) : out.color.dim(fit(previews.get(s.id) ?? '', 40)),
        ]),
        { align: ['left', 'left', 'left', 'left', 'right', 'right', 'left'] },
      )
    })
}
