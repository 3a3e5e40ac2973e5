import { randomUUID } from 'node:crypto'
import { and, desc, eq, getTableColumns, gte, isNull, lt, sql } from 'drizzle-orm'
import { statementOf } from '../database.ts'
import type { QueryResult } from '../driver.ts'
import { EngramError, isConstraintError } from '../errors.ts'
import { sessions } from '../schema/sessions.ts'
import type { ListSessionsOptions, NewSession, Page, Session, SessionModelConfig } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { deleteSessionsStatements } from './session-deletion.ts'
import { decodeSession, SESSION_SELECT, type SessionRow } from './session-row.ts'

export const sessionNotFound = (id: string) =>
  new EngramError(
    'SESSION_NOT_FOUND',
    `No session with id ${JSON.stringify(id)}. Create it with createSession() first.`,
  )

/** Ends a session unless it has ended already (the first reason wins). */
export const endSessionStatement = (ctx: StoreContext, id: string, endReason: string, now: number) =>
  statementOf(
    ctx.db
      .update(sessions)
      .set({ endedAt: now, endReason })
      .where(and(eq(sessions.id, id), isNull(sessions.endedAt))),
  )

/**
 * The condition of an INSERT … SELECT that creates a session: no parent, or a parent of the same user (a
 * parent of another user is as good as missing). Its parameters come from {@link parentOfSameUser}.
 */
export const PARENT_OF_SAME_USER =
  'CAST(? AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = ? AND user_id IS NOT DISTINCT FROM ?)'

export const parentOfSameUser = (parent: string | null, userId: string | null) => [parent, parent, userId]

export async function createSession(ctx: StoreContext, input: NewSession): Promise<Session> {
  const session = parse(args.newSession, input, 'Creating a session')
  const id = session.id ?? randomUUID()
  const parent = session.parentSessionId ?? null
  const userId = session.userId ?? null
  let results: QueryResult[]
  try {
    results = await ctx.write(
      [
        {
          sql: `INSERT INTO sessions (id, source, user_id, model, title, system_prompt, model_config, parent_session_id, started_at)
            SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ${PARENT_OF_SAME_USER}`,
          params: [
            id,
            session.source,
            userId,
            session.model ?? null,
            session.title ?? null,
            session.systemPrompt ?? null,
            args.modelConfigText(session.modelConfig),
            parent,
            Date.now(),
            ...parentOfSameUser(parent, userId),
          ],
        },
      ],
      'Creating a session',
    )
  } catch (error) {
    if (isConstraintError((error as EngramError).cause)) {
      throw new EngramError(
        'SESSION_EXISTS',
        `A session with id ${JSON.stringify(id)} already exists. Omit id to get a new UUID.`,
        { cause: error },
      )
    }
    throw error
  }
  if (results[0]?.changes === 0) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `The parent session ${JSON.stringify(parent)} does not exist for ${userId === null ? 'sessions without a user' : `user ${JSON.stringify(userId)}`}. A child session belongs to its parent's user.`,
    )
  }
  return (await getSession(ctx, id)) as Session
}

export async function getSession(ctx: StoreContext, id: string): Promise<Session | null> {
  const sessionId = args.checkSessionId(id, 'Reading a session')
  const [session] = await ctx.query('Reading a session', (db) =>
    db.select().from(sessions).where(eq(sessions.id, sessionId)),
  )
  return session ?? null
}

// The rowid breaks ties between sessions started in the same millisecond, in insertion order.
const rowid = sql<number>`${sessions}.rowid`

// The dialect's prefix condition over the sessions' id column, its one `?` bound to its parameter.
function idStartsWith(ctx: StoreContext, prefix: string) {
  const { sql: condition, param } = ctx.dialect.idPrefix('"sessions"."id"', prefix)
  const [before = '', after = ''] = condition.split('?')
  return sql`${sql.raw(before)}${param}${sql.raw(after)}`
}

export async function listSessions(
  ctx: StoreContext,
  options: ListSessionsOptions = {},
): Promise<Page<Session>> {
  const action = 'Listing sessions'
  const { source, userId, idPrefix, startedAfter, startedBefore, limit, offset, cursor } = parse(
    args.listSessions,
    options,
    action,
  )
  const after =
    cursor === undefined ? undefined : (decodeCursor(cursor, 2, offset, action) as [number, number])
  const rows = await ctx.query(action, (db) =>
    db
      .select({ ...getTableColumns(sessions), rowid })
      .from(sessions)
      .where(
        and(
          source === undefined ? undefined : eq(sessions.source, source),
          userId === undefined ? undefined : eq(sessions.userId, userId),
          idPrefix === undefined ? undefined : idStartsWith(ctx, idPrefix),
          startedAfter === undefined ? undefined : gte(sessions.startedAt, startedAfter),
          startedBefore === undefined ? undefined : lt(sessions.startedAt, startedBefore),
          after === undefined
            ? undefined
            : sql`(${sessions.startedAt}, ${rowid}) < (${after[0]}, ${after[1]})`,
        ),
      )
      .orderBy(desc(sessions.startedAt), desc(rowid))
      .limit(limit)
      .offset(offset),
  )
  const last = rows.at(-1)
  return {
    items: rows.map(({ rowid: _, ...session }) => session),
    nextCursor: last && rows.length === limit ? encodeCursor([last.startedAt, last.rowid]) : null,
  }
}

export async function endSession(ctx: StoreContext, id: string, reason: string): Promise<void> {
  const action = 'Ending a session'
  const endReason = parse(args.endReason, reason, action, { field: 'the end reason' })
  const sessionId = args.checkSessionId(id, action)
  const [ended] = await ctx.write([endSessionStatement(ctx, sessionId, endReason, Date.now())], action)
  if (ended?.changes === 0 && !(await getSession(ctx, sessionId))) throw sessionNotFound(sessionId)
}

/** Clears a session's end (time and reason) so a resumed session is live again; a live session is unchanged. */
export async function reopenSession(ctx: StoreContext, id: string): Promise<void> {
  const action = 'Reopening a session'
  const sessionId = args.checkSessionId(id, action)
  const [reopened] = await ctx.write(
    [
      statementOf(
        ctx.db.update(sessions).set({ endedAt: null, endReason: null }).where(eq(sessions.id, sessionId)),
      ),
    ],
    action,
  )
  if (reopened?.changes === 0) throw sessionNotFound(sessionId)
}

export async function setSystemPrompt(ctx: StoreContext, id: string, prompt: string): Promise<void> {
  const action = 'Saving the system prompt'
  const systemPrompt = parse(args.systemPrompt, prompt, action, { field: 'the system prompt' })
  const sessionId = args.checkSessionId(id, action)
  const [updated] = await ctx.write(
    [statementOf(ctx.db.update(sessions).set({ systemPrompt }).where(eq(sessions.id, sessionId)))],
    action,
  )
  if (updated?.changes === 0) throw sessionNotFound(sessionId)
}

export async function setModelConfig(
  ctx: StoreContext,
  id: string,
  config: SessionModelConfig | null,
): Promise<void> {
  const action = 'Recording the model settings of a session'
  const modelConfig = parse(args.modelConfig.nullable(), config, action, { field: 'the model settings' })
  const sessionId = args.checkSessionId(id, action)
  const [updated] = await ctx.write(
    [statementOf(ctx.db.update(sessions).set({ modelConfig }).where(eq(sessions.id, sessionId)))],
    action,
  )
  if (updated?.changes === 0) throw sessionNotFound(sessionId)
}

export async function getLineage(ctx: StoreContext, id: string): Promise<Session[]> {
  const rows = await ctx.read<SessionRow>(
    {
      // A parent of another user (possible in files written before this check) ends the chain.
      sql: `WITH RECURSIVE chain(id, user_id, depth) AS (
          SELECT id, user_id, 0 FROM sessions WHERE id = ?
          UNION ALL
          SELECT p.id, p.user_id, c.depth + 1 FROM chain c JOIN sessions child ON child.id = c.id
            JOIN sessions p ON p.id = child.parent_session_id AND p.user_id IS NOT DISTINCT FROM c.user_id
          WHERE c.depth < 10000
        )
        ${SESSION_SELECT} JOIN chain ON chain.id = s.id ORDER BY chain.depth DESC`,
      params: [args.checkSessionId(id, 'Reading the session lineage')],
    },
    'Reading the session lineage',
  )
  if (rows.length === 0) throw sessionNotFound(id)
  return rows.map(decodeSession)
}

export async function resolveTip(ctx: StoreContext, id: string): Promise<string> {
  const rows = await ctx.read<{ id: string }>(
    {
      sql: `WITH RECURSIVE tip(id, user_id, depth) AS (
          SELECT id, user_id, 0 FROM sessions WHERE id = ?
          UNION ALL
          SELECT (SELECT c.id FROM sessions c WHERE c.parent_session_id = tip.id AND c.user_id IS NOT DISTINCT FROM tip.user_id
              ORDER BY c.started_at DESC, c.rowid DESC LIMIT 1), user_id, depth + 1
          FROM tip WHERE tip.id IS NOT NULL AND depth < 10000
        )
        SELECT id FROM tip WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1`,
      params: [args.checkSessionId(id, 'Resolving the session tip')],
    },
    'Resolving the session tip',
  )
  if (!rows[0]) throw sessionNotFound(id)
  return rows[0].id
}

export async function deleteSession(ctx: StoreContext, id: string): Promise<void> {
  const action = 'Deleting a session'
  const results = await ctx.write(
    deleteSessionsStatements('SELECT ?', [args.checkSessionId(id, action)]),
    action,
  )
  if (results.at(-1)?.changes === 0) throw sessionNotFound(id)
}
