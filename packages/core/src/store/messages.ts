import { randomUUID } from 'node:crypto'
import type { QueryResult } from '../driver.ts'
import { EngramError } from '../errors.ts'
import type {
  AppendedOnce,
  ChatMessage,
  ContinuedSession,
  ContinueSessionInput,
  MessageInput,
  MessagesPageOptions,
  Page,
  RefMessageInput,
  Session,
  StoredMessage,
} from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { insertEpisode, insertedEpisode } from './episodes.ts'
import {
  decodeMessage,
  decodeStoredMessage,
  type EncodedMessage,
  encodeMessage,
  MESSAGE_COLUMNS,
  type MessageRow,
  PLAIN_MESSAGE_COLUMNS,
  STORED_MESSAGE_COLUMNS,
  type StoredMessageRow,
} from './message-codec.ts'
import { endSessionStatement, getSession, sessionNotFound } from './sessions.ts'

const MESSAGE_FIELDS = MESSAGE_COLUMNS.split(',').map((c) => c.trim())
const MESSAGE_PLACEHOLDERS = MESSAGE_FIELDS.map(() => '?').join(', ')
// INSERT ... SELECT ... WHERE EXISTS: an unknown session writes nothing, in the same round trip.
const INSERT_MESSAGE = `INSERT INTO messages (session_id, ${MESSAGE_COLUMNS})
  SELECT ?, ${MESSAGE_PLACEHOLDERS} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) RETURNING id`
// A message that is not retrieval traffic leaves `retrieval` to its default (null): the statement every
// schema since 0000 takes, which the upgrade tests write through on older schemas.
const INSERT_PLAIN_MESSAGE = `INSERT INTO messages (session_id, ${PLAIN_MESSAGE_COLUMNS})
  SELECT ?, ${MESSAGE_PLACEHOLDERS.slice(3)} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) RETURNING id`

/** The SQLite statement that writes one encoded message into `sessionId`. */
const insertMessage = (e: EncodedMessage, sessionId: string) =>
  e.retrieval
    ? { sql: INSERT_MESSAGE, params: [sessionId, ...e.values, sessionId] }
    : { sql: INSERT_PLAIN_MESSAGE, params: [sessionId, ...e.values.slice(0, -1), sessionId] }

function storedFrom(encoded: EncodedMessage, sessionId: string, id: number): StoredMessage {
  return {
    ...encoded.message,
    id,
    sessionId,
    timestamp: encoded.timestamp,
    tokenCount: encoded.tokenCount,
    ...(encoded.retrieval ? { retrieval: true } : {}),
  } as StoredMessage
}

const idOf = (result: QueryResult | undefined) => result?.rows[0]?.id as number

export async function appendMessages(
  ctx: StoreContext,
  sessionId: string,
  messages: readonly MessageInput[],
): Promise<StoredMessage[]> {
  const id = args.checkSessionId(sessionId, 'Appending a message')
  if (!Array.isArray(messages))
    throw new EngramError('INVALID_ARGUMENT', 'appendMessages takes an array of messages.')
  if (messages.length === 0) return []
  const now = Date.now()
  const encoded = messages.map((input) => encodeMessage(input, now, ctx.dialect.messageIndex))
  // an engine that appends many rows per statement (one round trip up to its row limit); its rows carry
  // their index texts (its messageIndex hands nothing after an INSERT)
  const { appendRows } = ctx.dialect
  if (appendRows !== null) {
    const ids = await appendRows(
      ctx,
      id,
      MESSAGE_FIELDS,
      encoded.map((e) => e.values),
    )
    if (ids.length === 0) throw sessionNotFound(id)
    await ctx.appended(encoded)
    return encoded.map((e, i) => storedFrom(e, id, ids[i] as number))
  }
  const results = await ctx.write(
    encoded.map((e) => insertMessage(e, id)),
    'Appending a message',
  )
  if (results[0]?.changes === 0) throw sessionNotFound(id)
  await ctx.appended(encoded)
  return encoded.map((e, i) => storedFrom(e, id, idOf(results[i])))
}

// ON CONFLICT on (session_id, ref): a message whose ref the session already holds is not written again.
const INSERT_REF_MESSAGE = `INSERT INTO messages (session_id, ref, ${MESSAGE_COLUMNS})
  SELECT ?, ?, ${MESSAGE_PLACEHOLDERS} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
  ON CONFLICT DO NOTHING RETURNING id`

export async function appendMessagesOnce(
  ctx: StoreContext,
  sessionId: string,
  messages: readonly RefMessageInput[],
): Promise<AppendedOnce> {
  const action = 'Appending a message'
  const id = args.checkSessionId(sessionId, action)
  if (!Array.isArray(messages))
    throw new EngramError('INVALID_ARGUMENT', 'appendMessagesOnce takes an array of messages.')
  const refs = messages.map((m, i) => args.checkMessageRef((m as { ref?: unknown } | null)?.ref, i))
  if (messages.length === 0) return { stored: [], existing: [] }
  const now = Date.now()
  const encoded = messages.map((input) => encodeMessage(input, now, ctx.dialect.messageIndex))
  const results = await ctx.write(
    encoded.map((e, i) => ({ sql: INSERT_REF_MESSAGE, params: [id, refs[i] as string, ...e.values, id] })),
    action,
  )
  const stored: StoredMessage[] = []
  const existing: string[] = []
  for (const [i, e] of encoded.entries()) {
    const result = results[i]
    if (result?.changes === 0) existing.push(refs[i] as string)
    else stored.push(storedFrom(e, id, idOf(result)))
  }
  if (stored.length === 0 && !(await getSession(ctx, id))) throw sessionNotFound(id)
  await ctx.appended(encoded.filter((_, i) => results[i]?.changes !== 0))
  return { stored, existing }
}

export async function getMessages(ctx: StoreContext, sessionId: string): Promise<ChatMessage[]> {
  const rows = await ctx.read<MessageRow>(
    {
      sql: 'SELECT id, role, content, content_parts, tool_calls, tool_call_id, name FROM messages WHERE session_id = ? ORDER BY id',
      params: [args.checkSessionId(sessionId, 'Reading messages')],
    },
    'Reading messages',
  )
  return rows.map(decodeMessage)
}

export async function getStoredMessages(ctx: StoreContext, sessionId: string): Promise<StoredMessage[]> {
  const rows = await ctx.read<StoredMessageRow>(
    {
      sql: `SELECT ${STORED_MESSAGE_COLUMNS}
        FROM messages WHERE session_id = ? ORDER BY id`,
      params: [args.checkSessionId(sessionId, 'Reading messages')],
    },
    'Reading messages',
  )
  return rows.map(decodeStoredMessage)
}

/** One page of the session's stored messages, oldest first: an indexed range read of `limit` rows. */
export async function getStoredMessagesPage(
  ctx: StoreContext,
  sessionId: string,
  options: MessagesPageOptions = {},
): Promise<Page<StoredMessage>> {
  const action = 'Reading messages'
  const id = args.checkSessionId(sessionId, action)
  const { limit, cursor, fromId } = parse(args.messagesPage, options, action)
  if (cursor !== undefined && fromId !== undefined) {
    throw new EngramError('INVALID_ARGUMENT', `${action}: pass either cursor or fromId, not both.`)
  }
  const afterId = cursor === undefined ? (fromId ?? 1) - 1 : (decodeCursor(cursor, 1, 0, action)[0] as number)
  const rows = await ctx.read<StoredMessageRow>(
    {
      sql: `SELECT ${STORED_MESSAGE_COLUMNS}
        FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
      params: [id, afterId, limit],
    },
    action,
  )
  const items = rows.map(decodeStoredMessage)
  const last = items.at(-1)
  return { items, nextCursor: last && items.length === limit ? encodeCursor([last.id]) : null }
}

export async function continueSession(
  ctx: StoreContext,
  parentId: string,
  input: ContinueSessionInput,
): Promise<ContinuedSession> {
  const action = 'Continuing a session'
  const parent = args.checkSessionId(parentId, action)
  const { endReason, messages, episode: episodeInput } = parse(args.continueSession, input, action)
  const childId = randomUUID()
  const now = Date.now()
  const encoded = messages.map((message) =>
    encodeMessage(message as MessageInput, now, ctx.dialect.messageIndex),
  )
  const episode = episodeInput ? insertEpisode({ ...episodeInput, sessionId: parent }) : null
  const results = await ctx.write(
    [
      endSessionStatement(ctx, parent, endReason, now),
      {
        sql: `INSERT INTO sessions (id, source, user_id, model, title, system_prompt, model_config, parent_session_id, started_at)
          SELECT ?, source, user_id, model, title, system_prompt, model_config, id, ? FROM sessions WHERE id = ?`,
        params: [childId, now, parent],
      },
      ...encoded.map((e) => insertMessage(e, childId)),
      ...(episode ? [episode] : []),
    ],
    action,
  )
  // An unknown parent matches no row in any statement, so nothing was written.
  if (results[1]?.changes === 0) throw sessionNotFound(parent)
  await ctx.appended(encoded)
  return {
    session: (await getSession(ctx, childId)) as Session,
    messages: encoded.map((e, i) => storedFrom(e, childId, idOf(results[i + 2]))),
    episode: episode ? insertedEpisode(results.at(-1)) : null,
  }
}
