import type { SqlValue } from '../driver.ts'
import { EngramError } from '../errors.ts'
import type { ResolveSessionOptions, Session } from '../types.ts'
import { parse, wholeNumber } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { decodeSession, SESSION_SELECT, type SessionRow } from './session-row.ts'

const action = 'Resolving a session reference'

/** Characters of a reference echoed in an error: any input leaves the message short. */
const ECHO_CHARS = 80

/** The reference, quoted, cut to ECHO_CHARS characters (with a mark). */
const quoted = (reference: string) =>
  JSON.stringify(reference.length > ECHO_CHARS ? `${reference.slice(0, ECHO_CHARS)}…` : reference)

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
 * ambiguous or shorter than `minPrefix`. The reference is echoed at most 80 characters long. At most two
 * indexed reads.
 */
export async function resolveSession(
  ctx: StoreContext,
  reference: string,
  options: ResolveSessionOptions = {},
): Promise<Session> {
  const { source, userId } = parse(args.resolveSession, { reference, ...options }, action)
  const minPrefix = parse(wholeNumber(1).default(1), options.minPrefix, action, { field: 'minPrefix' })
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
  if (reference.length < minPrefix) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Session reference ${quoted(reference)} is too short: give the full id or a prefix of at least ${minPrefix} characters.`,
    )
  }
  // Two are enough to know a prefix is ambiguous; the error names them.
  const prefix = ctx.dialect.idPrefix('s.id', reference)
  const matches = await select(prefix.sql, [prefix.param], 2)
  if (matches.length === 1) return matches[0] as Session
  if (matches.length === 0) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `No session${scope} has an id starting with ${quoted(reference)}.`,
    )
  }
  throw new EngramError(
    'INVALID_ARGUMENT',
    `${quoted(reference)} is the start of several session ids (${matches.map((s) => s.id).join(', ')}); give more characters of the id.`,
  )
}
