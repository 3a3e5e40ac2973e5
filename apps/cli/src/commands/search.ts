import { MAX_PAGE_LIMIT, type Role } from '@engram/core'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { UsageError, wholeOption } from '../errors.ts'
import { fit, highlight, type Io, relativeTime, shortIds } from '../output.ts'

interface SearchCommandOptions {
  limit?: string
  source?: string
  role?: string
}

const ROLES = ['user', 'assistant', 'tool', 'system']

/** `engram search "<q>"`: ranked hits (episodes first), or `{ query, hits: SearchHit[] }` with --json. */
export function registerSearch(program: Command, io: Io): void {
  program
    .command('search')
    .description('full-text search over every message and episode (any language, any text)')
    .argument('<query>', 'words, a "quoted phrase", Chinese/Japanese/Korean text, prefix*')
    .option('--limit <n>', `how many hits (1 to ${MAX_PAGE_LIMIT})`, '10')
    .option('--source <source>', 'only sessions from this source')
    .option('--role <role>', `only messages of this role (${ROLES.join(', ')})`)
    .action(async (query: string, _options, command: Command) => {
      const ctx = createContext<SearchCommandOptions>(command, io)
      const { limit, source, role } = ctx.options
      if (role !== undefined && !ROLES.includes(role)) {
        throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got ${JSON.stringify(role)}).`)
      }
      if (query.trim() === '')
        throw new UsageError(
          'search needs words to look for (got an empty query): engram search "deploy window" (any language).',
        )
      const count = wholeOption(limit, '--limit', 10, { max: MAX_PAGE_LIMIT })
      const hits = await ctx.withStore(
        (store) => store.search(query, { limit: count, source, role: role as Role | undefined }),
        { create: false },
      )
      const { out } = ctx
      if (out.json) return out.printJson({ query, hits })
      if (hits.length === 0) return out.line(`Nothing found for ${JSON.stringify(query)}.`)
      const short = shortIds(hits.map((hit) => hit.sessionId))
      out.table(
        ['SESSION', 'WHEN', 'ROLE', 'MATCH'],
        hits.map((hit) => [
          out.color.cyan(short(hit.sessionId)),
          relativeTime(hit.timestamp),
          hit.kind === 'episode' ? out.color.magenta('summary') : hit.role,
          highlight(fit(hit.snippet, Math.max(30, out.width - 40)), out.color),
        ]),
      )
    })
}
