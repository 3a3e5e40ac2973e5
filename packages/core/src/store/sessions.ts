import { randomUUID } from 'node:crypto'
import type { QueryResult } from '../driver.ts'
import { EngramError, sqliteCode } from '../errors.ts'
import type { ListSessionsOptions, NewSession, Page, Session } from '../types.ts'
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
export const END_SESSION =
  'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL'

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
          // A child belongs to its parent's user: a parent of another user is as good as missing.
          sql: `INSERT INTO sessions (id, source, user_id, model, title, system_prompt, parent_session_id, started_at)
            SELECT ?, ?, ?, ?, ?, ?, ?, ?
            WHERE ? IS NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = ? AND user_id IS ?)`,
          params: [
            id,
            session.source,
            userId,
            session.model ?? null,
            session.title ?? null,
            session.systemPrompt ?? null,
            parent,
            Date.now(),
            parent,
            parent,
            userId,
          ],
        },
      ],
      'Creating a session',
    )
  } catch (error) {
    if (sqliteCode((error as EngramError).cause)?.startsWith('SQLITE_CONSTRAINT')) {
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
  const rows = await ctx.read<SessionRow>(
    { sql: `${SESSION_SELECT} WHERE s.id = ?`, params: [parse(args.sessionId, id, 'Reading a session')] },
    'Reading a session',
  )
  return rows[0] ? decodeSession(rows[0]) : null
}

export async function listSessions(
  ctx: StoreContext,
  options: ListSessionsOptions = {},
): Promise<Page<Session>> {
  const { source, userId, limit, offset, cursor } = parse(args.listSessions, options, 'Listing sessions')
  const where: string[] = []
  const params: (string | number)[] = []
  if (source !== undefined) {
    where.push('s.source = ?')
    params.push(source)
  }
  if (userId !== undefined) {
    where.push('s.user_id = ?')
    params.push(userId)
  }
  if (cursor !== undefined) {
    const [startedAt, rowid] = decodeCursor(cursor, 2, offset, 'Listing sessions') as [number, number]
    where.push('(s.started_at, s.rowid) < (?, ?)')
    params.push(startedAt, rowid)
  }
  params.push(limit, offset)
  const rows = await ctx.read<SessionRow & { row_id: number; started_at: number }>(
    {
      sql: `${SESSION_SELECT.replace('SELECT ', 'SELECT s.rowid AS row_id, ')} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY s.started_at DESC, s.rowid DESC LIMIT ? OFFSET ?`,
      params,
    },
    'Listing sessions',
  )
  const last = rows.at(-1)
  return {
    items: rows.map(decodeSession),
    nextCursor: last && rows.length === limit ? encodeCursor([last.started_at, last.row_id]) : null,
  }
}

export async function endSession(ctx: StoreContext, id: string, reason: string): Promise<void> {
  parse(args.endReason, reason, 'Ending a session')
  const [result] = await ctx.write(
    [{ sql: END_SESSION, params: [Date.now(), reason, parse(args.sessionId, id, 'Ending a session')] }],
    'Ending a session',
  )
  if (result?.changes === 0 && !(await getSession(ctx, id))) throw sessionNotFound(id)
}

export async function setSystemPrompt(ctx: StoreContext, id: string, prompt: string): Promise<void> {
  const action = 'Saving the system prompt'
  const [result] = await ctx.write(
    [
      {
        sql: 'UPDATE sessions SET system_prompt = ? WHERE id = ?',
        params: [parse(args.systemPrompt, prompt, action), parse(args.sessionId, id, action)],
      },
    ],
    action,
  )
  if (result?.changes === 0) throw sessionNotFound(id)
}

export async function getLineage(ctx: StoreContext, id: string): Promise<Session[]> {
  const rows = await ctx.read<SessionRow>(
    {
      // A parent of another user (possible in files written before this check) ends the chain.
      sql: `WITH RECURSIVE chain(id, user_id, depth) AS (
          SELECT id, user_id, 0 FROM sessions WHERE id = ?
          UNION ALL
          SELECT p.id, p.user_id, c.depth + 1 FROM chain c JOIN sessions child ON child.id = c.id
            JOIN sessions p ON p.id = child.parent_session_id AND p.user_id IS c.user_id
          WHERE c.depth < 10000
        )
        ${SESSION_SELECT} JOIN chain ON chain.id = s.id ORDER BY chain.depth DESC`,
      params: [parse(args.sessionId, id, 'Reading the session lineage')],
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
          SELECT (SELECT c.id FROM sessions c WHERE c.parent_session_id = tip.id AND c.user_id IS tip.user_id
              ORDER BY c.started_at DESC, c.rowid DESC LIMIT 1), user_id, depth + 1
          FROM tip WHERE tip.id IS NOT NULL AND depth < 10000
        )
        SELECT id FROM tip WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1`,
      params: [parse(args.sessionId, id, 'Resolving the session tip')],
    },
    'Resolving the session tip',
  )
  if (!rows[0]) throw sessionNotFound(id)
  return rows[0].id
}

export async function deleteSession(ctx: StoreContext, id: string): Promise<void> {
  const action = 'Deleting a session'
  const results = await ctx.write(
    deleteSessionsStatements('SELECT ?', [parse(args.sessionId, id, action)]),
    action,
  )
  if (results.at(-1)?.changes === 0) throw sessionNotFound(id)
}
