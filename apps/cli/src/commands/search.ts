import type { Role } from '@engram/core'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { positiveInt, UsageError } from '../errors.ts'
import { fit, highlight, type Io, relativeTime, shortId } from '../output.ts'

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
    .option('--limit <n>', 'how many hits', '10')
    .option('--source <source>', 'only sessions from this source')
    .option('--role <role>', `only messages of this role (${ROLES.join(', ')})`)
    .action(async (query: string, _options, command: Command) => {
      const ctx = createContext<SearchCommandOptions>(command, io)
      const { limit, source, role } = ctx.options
      if (role !== undefined && !ROLES.includes(role)) {
        throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got ${JSON.stringify(role)}).`)
      }
      const hits = await ctx.withStore((store) =>
        store.search(query, {
          limit: positiveInt(limit, '--limit', 10),
          source,
          role: role as Role | undefined,
        }),
      )
      const { out } = ctx
      if (out.json) return out.printJson({ query, hits })
      if (hits.length === 0) return out.line(`Nothing found for ${JSON.stringify(query)}.`)
      out.table(
        ['SESSION', 'WHEN', 'ROLE', 'MATCH'],
        hits.map((hit) => [
          out.color.cyan(shortId(hit.sessionId)),
          relativeTime(hit.timestamp),
          hit.kind === 'episode' ? out.color.magenta('summary') : hit.role,
          highlight(fit(hit.snippet, Math.max(30, out.width - 40)), out.color),
        ]),
      )
    })
}
