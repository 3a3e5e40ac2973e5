import type { SqlValue } from '../driver.ts'
import { EngramError } from '../errors.ts'
import type { ResolveSessionOptions, Session } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { decodeSession, SESSION_SELECT, type SessionRow } from './session-row.ts'

const action = 'Resolving a session reference'

/** Who the sessions belong to, as a sentence ending: `` of source "cli" for user "u1"``. */
function scopeOf(source: string | undefined, userId: string | null | undefined): string {
  const parts = []
  if (source !== undefined) parts.push(` of source ${JSON.stringify(source)}`)
  if (userId === null) parts.push(' without a user')
  else if (userId !== undefined) parts.push(` of user ${JSON.stringify(userId)}`)
  return parts.join('')
}

/**
 * The session a reference names: `latest` (the newest), a full id, or a prefix of exactly one id, among the
 * sessions of `source` and `userId` when given (a session outside them is as good as missing). Errors:
 * `SESSION_NOT_FOUND` when nothing matches, `INVALID_ARGUMENT` (listing two of them) when a prefix is
 * ambiguous. At most two indexed reads.
 */
export async function resolveSession(
  ctx: StoreContext,
  reference: string,
  options: ResolveSessionOptions = {},
): Promise<Session> {
  const { source, userId } = parse(args.resolveSession, { reference, ...options }, action)
  const where: string[] = []
  const params: SqlValue[] = []
  if (source !== undefined) {
    where.push('s.source = ?')
    params.push(source)
  }
  if (userId !== undefined) {
    where.push('s.user_id IS NOT DISTINCT FROM ?')
    params.push(userId)
  }
  const select = async (condition: string | null, extra: SqlValue[], limit: number) => {
    const clauses = condition === null ? where : [condition, ...where]
    const rows = await ctx.read<SessionRow>(
      {
        sql: `${SESSION_SELECT} ${clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : ''}
          ORDER BY s.started_at DESC, s.rowid DESC LIMIT ${limit}`,
        params: [...extra, ...params],
      },
      action,
    )
    return rows.map(decodeSession)
  }
  const scope = scopeOf(source, userId)
  if (reference === 'latest') {
    const [latest] = await select(null, [], 1)
    if (latest) return latest
    throw new EngramError('SESSION_NOT_FOUND', `There are no sessions${scope} yet.`)
  }
  const [exact] = await select('s.id = ?', [reference], 1)
  if (exact) return exact
  // Two are enough to know a prefix is ambiguous; the error names them.
  const prefix = ctx.dialect.idPrefix('s.id', reference)
  const matches = await select(prefix.sql, [prefix.param], 2)
  if (matches.length === 1) return matches[0] as Session
  if (matches.length === 0) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `No session${scope} has an id starting with ${JSON.stringify(reference)}.`,
    )
  }
  throw new EngramError(
    'INVALID_ARGUMENT',
    `${JSON.stringify(reference)} is the start of several session ids (${matches.map((s) => s.id).join(', ')}); give more characters of the id.`,
  )
}
