import { randomUUID } from 'node:crypto'
import type { QueryResult } from '../driver.ts'
import { EngramError, sqliteCode } from '../errors.ts'
import type {
  ChatMessage,
  Episode,
  ListSessionsOptions,
  MessageInput,
  NewEpisode,
  NewSession,
  SearchHit,
  SearchOptions,
  Session,
  StoredMessage,
  UsageRecord,
  UsageReport,
} from '../types.ts'
import type { StoreContext } from './context.ts'
import {
  addEpisode,
  getEpisodes,
  insertEpisode,
  insertedEpisode,
  type PruneEpisodesOptions,
  pruneEpisodes,
} from './episodes.ts'
import {
  checkIntegrity,
  type IntegrityReport,
  type PruneSessionsOptions,
  pruneSessions,
  rebuildSearchIndex,
} from './maintenance.ts'
import {
  decodeMessage,
  decodeStoredMessage,
  type EncodedMessage,
  encodeMessage,
  MESSAGE_COLUMNS,
  type MessageRow,
  type StoredMessageRow,
} from './message-codec.ts'
import { checkPaging } from './paging.ts'
import { search } from './search.ts'
import { deleteSessionsStatements } from './session-deletion.ts'
import { decodeSession, SESSION_SELECT, type SessionRow } from './session-row.ts'
import { readUsage, usageStatements } from './usage.ts'

const MESSAGE_PLACEHOLDERS = MESSAGE_COLUMNS.split(',')
  .map(() => '?')
  .join(', ')
// INSERT ... SELECT ... WHERE EXISTS: an unknown session writes nothing, in the same round trip.
const INSERT_MESSAGE = `INSERT INTO messages (session_id, ${MESSAGE_COLUMNS})
  SELECT ?, ${MESSAGE_PLACEHOLDERS} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) RETURNING id`

const sessionNotFound = (id: string) =>
  new EngramError(
    'SESSION_NOT_FOUND',
    `No session with id ${JSON.stringify(id)}. Create it with createSession() first.`,
  )

function storedFrom(
  encoded: EncodedMessage,
  sessionId: string,
  result: QueryResult | undefined,
): StoredMessage {
  return {
    ...encoded.message,
    id: result?.rows[0]?.id as number,
    sessionId,
    timestamp: encoded.timestamp,
    tokenCount: encoded.tokenCount,
  }
}

export interface ContinueSessionInput {
  /** Why the parent ended (`compression` for the compressor). */
  endReason: string
  /** The history the child starts with. */
  messages: readonly MessageInput[]
  /** A summary to store on the parent, pointing at the message-id range it replaced. */
  episode?: Omit<NewEpisode, 'sessionId'>
}

export interface ContinuedSession {
  session: Session
  messages: StoredMessage[]
  episode: Episode | null
}

function optionalText(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${what} must be a string when given (got ${JSON.stringify(value)}).`,
    )
  }
  return value
}

function requireText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${what} must be a non-empty string (got ${JSON.stringify(value)}).`,
    )
  }
  return value
}

/** The session store. Every write is one committed transaction; reads return plain objects. */
export class Store {
  constructor(private readonly ctx: StoreContext) {}

  get driverName(): string {
    return this.ctx.driver.name
  }

  async createSession(input: NewSession): Promise<Session> {
    const source = requireText(input?.source, 'source')
    const id = input.id === undefined ? randomUUID() : requireText(input.id, 'id')
    const parent = optionalText(input.parentSessionId, 'parentSessionId')
    let results: QueryResult[]
    try {
      results = await this.ctx.write(
        [
          {
            sql: `INSERT INTO sessions (id, source, user_id, model, title, system_prompt, parent_session_id, started_at)
              SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE ? IS NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = ?)`,
            params: [
              id,
              source,
              optionalText(input.userId, 'userId'),
              optionalText(input.model, 'model'),
              optionalText(input.title, 'title'),
              optionalText(input.systemPrompt, 'systemPrompt'),
              parent,
              Date.now(),
              parent,
              parent,
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
        `The parent session ${JSON.stringify(parent)} does not exist.`,
      )
    }
    return (await this.getSession(id)) as Session
  }

  async getSession(id: string): Promise<Session | null> {
    const rows = await this.ctx.read<SessionRow>(
      { sql: `${SESSION_SELECT} WHERE s.id = ?`, params: [id] },
      'Reading a session',
    )
    return rows[0] ? decodeSession(rows[0]) : null
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<Session[]> {
    const where: string[] = []
    const params: (string | number)[] = []
    if (options.source !== undefined) {
      where.push('s.source = ?')
      params.push(options.source)
    }
    if (options.userId !== undefined) {
      where.push('s.user_id = ?')
      params.push(options.userId)
    }
    const { limit, offset } = checkPaging(options, 50)
    params.push(limit, offset)
    const rows = await this.ctx.read<SessionRow>(
      {
        sql: `${SESSION_SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.started_at DESC, s.rowid DESC LIMIT ? OFFSET ?`,
        params,
      },
      'Listing sessions',
    )
    return rows.map(decodeSession)
  }

  /** Marks the session ended; the first reason given wins and later calls change nothing. */
  async endSession(id: string, reason: string): Promise<void> {
    requireText(reason, 'The end reason')
    const [result] = await this.ctx.write(
      [
        {
          sql: 'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL',
          params: [Date.now(), reason, id],
        },
      ],
      'Ending a session',
    )
    if (result?.changes === 0 && !(await this.getSession(id))) throw sessionNotFound(id)
  }

  /** Stores the assembled system prompt verbatim, so a continuing session can reuse it byte for byte. */
  async setSystemPrompt(id: string, prompt: string): Promise<void> {
    if (typeof prompt !== 'string')
      throw new EngramError('INVALID_ARGUMENT', 'The system prompt must be a string.')
    const [result] = await this.ctx.write(
      [{ sql: 'UPDATE sessions SET system_prompt = ? WHERE id = ?', params: [prompt, id] }],
      'Saving the system prompt',
    )
    if (result?.changes === 0) throw sessionNotFound(id)
  }

  /** Sessions from the root of the compression chain down to `id`. */
  async getLineage(id: string): Promise<Session[]> {
    const rows = await this.ctx.read<SessionRow & { depth: number }>(
      {
        sql: `WITH RECURSIVE chain(id, depth) AS (
            SELECT id, 0 FROM sessions WHERE id = ?
            UNION ALL
            SELECT p.parent_session_id, c.depth + 1 FROM chain c JOIN sessions p ON p.id = c.id
            WHERE p.parent_session_id IS NOT NULL AND c.depth < 10000
          )
          ${SESSION_SELECT} JOIN chain ON chain.id = s.id ORDER BY chain.depth DESC`,
        params: [id],
      },
      'Reading the session lineage',
    )
    if (rows.length === 0) throw sessionNotFound(id)
    return rows.map(decodeSession)
  }

  /** Follows the newest child of each session forward and returns the id at the end of the chain. */
  async resolveTip(id: string): Promise<string> {
    const rows = await this.ctx.read<{ id: string }>(
      {
        sql: `WITH RECURSIVE tip(id, depth) AS (
            SELECT id, 0 FROM sessions WHERE id = ?
            UNION ALL
            SELECT (SELECT c.id FROM sessions c WHERE c.parent_session_id = tip.id ORDER BY c.started_at DESC, c.rowid DESC LIMIT 1), depth + 1
            FROM tip WHERE tip.id IS NOT NULL AND depth < 10000
          )
          SELECT id FROM tip WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1`,
        params: [id],
      },
      'Resolving the session tip',
    )
    if (!rows[0]) throw sessionNotFound(id)
    return rows[0].id
  }

  /**
   * Continues a session in a new child session, in one transaction: ends the parent with `endReason`
   * (unless it has ended already), creates the child with the parent's source, user, model, title and
   * system prompt and `parentSessionId` pointing back, writes `messages` into the child and, when given,
   * stores `episode` on the parent (the summary of the parent's messages the child replaces). All or nothing.
   */
  async continueSession(parentId: string, input: ContinueSessionInput): Promise<ContinuedSession> {
    const reason = requireText(input?.endReason, 'endReason')
    const childId = randomUUID()
    const now = Date.now()
    const encoded = (input.messages ?? []).map((message) => encodeMessage(message, now))
    const episode = input.episode ? insertEpisode({ ...input.episode, sessionId: parentId }) : null
    const results = await this.ctx.write(
      [
        {
          sql: 'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL',
          params: [now, reason, parentId],
        },
        {
          sql: `INSERT INTO sessions (id, source, user_id, model, title, system_prompt, parent_session_id, started_at)
            SELECT ?, source, user_id, model, title, system_prompt, id, ? FROM sessions WHERE id = ?`,
          params: [childId, now, parentId],
        },
        ...encoded.map((e) => ({ sql: INSERT_MESSAGE, params: [childId, ...e.values, childId] })),
        ...(episode ? [episode] : []),
      ],
      'Continuing a session',
    )
    // An unknown parent matches no row in any statement, so nothing was written.
    if (results[1]?.changes === 0) throw sessionNotFound(parentId)
    return {
      session: (await this.getSession(childId)) as Session,
      messages: encoded.map((e, i) => storedFrom(e, childId, results[i + 2])),
      episode: episode ? insertedEpisode(results.at(-1)) : null,
    }
  }

  /** Writes one message in its own committed transaction and returns it with its id. */
  async appendMessage(sessionId: string, input: MessageInput): Promise<StoredMessage> {
    const [stored] = await this.appendMessages(sessionId, [input])
    return stored as StoredMessage
  }

  /** Writes the messages in one transaction: all of them or, on any error, none. */
  async appendMessages(sessionId: string, inputs: readonly MessageInput[]): Promise<StoredMessage[]> {
    if (!Array.isArray(inputs))
      throw new EngramError('INVALID_ARGUMENT', 'appendMessages takes an array of messages.')
    if (inputs.length === 0) return []
    const now = Date.now()
    const encoded = inputs.map((input) => encodeMessage(input, now))
    const results = await this.ctx.write(
      encoded.map((e) => ({ sql: INSERT_MESSAGE, params: [sessionId, ...e.values, sessionId] })),
      'Appending a message',
    )
    if (results[0]?.changes === 0) throw sessionNotFound(sessionId)
    return encoded.map((e, i) => storedFrom(e, sessionId, results[i]))
  }

  /** The session's history in insertion order, in the OpenAI chat shape. */
  async getMessages(sessionId: string): Promise<ChatMessage[]> {
    const rows = await this.ctx.read<MessageRow>(
      {
        sql: 'SELECT id, role, content, content_parts, tool_calls, tool_call_id, name FROM messages WHERE session_id = ? ORDER BY id',
        params: [sessionId],
      },
      'Reading messages',
    )
    return rows.map(decodeMessage)
  }

  /** Like getMessages, with each message's id, timestamp and token count. */
  async getStoredMessages(sessionId: string): Promise<StoredMessage[]> {
    const rows = await this.ctx.read<StoredMessageRow>(
      {
        sql: `SELECT id, session_id, role, content, content_parts, tool_calls, tool_call_id, name, timestamp, token_count
          FROM messages WHERE session_id = ? ORDER BY id`,
        params: [sessionId],
      },
      'Reading messages',
    )
    return rows.map(decodeStoredMessage)
  }

  async recordUsage(sessionId: string, record: UsageRecord): Promise<void> {
    const [inserted] = await this.ctx.write(usageStatements(sessionId, record), 'Recording model usage')
    if (inserted?.changes === 0) throw sessionNotFound(sessionId)
  }

  async usage(options: { sessionId?: string } = {}): Promise<UsageReport> {
    return readUsage(this.ctx, options.sessionId)
  }

  /** Deletes the session with its messages, episodes and usage; its children are kept and detached. */
  async deleteSession(id: string): Promise<void> {
    const results = await this.ctx.write(deleteSessionsStatements('SELECT ?', [id]), 'Deleting a session')
    if (results.at(-1)?.changes === 0) throw sessionNotFound(id)
  }

  search(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    return search(this.ctx, query, options)
  }

  addEpisode(input: NewEpisode): Promise<Episode> {
    return addEpisode(this.ctx, input)
  }

  /** The session's episodes, oldest first. */
  getEpisodes(sessionId: string): Promise<Episode[]> {
    return getEpisodes(this.ctx, sessionId)
  }

  pruneEpisodes(options: PruneEpisodesOptions): Promise<number> {
    return pruneEpisodes(this.ctx, options)
  }

  rebuildSearchIndex(): Promise<void> {
    return rebuildSearchIndex(this.ctx)
  }

  checkIntegrity(): Promise<IntegrityReport> {
    return checkIntegrity(this.ctx)
  }

  pruneSessions(options: PruneSessionsOptions): Promise<number> {
    return pruneSessions(this.ctx, options)
  }

  async vacuum(): Promise<void> {
    await this.ctx.read({ sql: 'VACUUM' }, 'Vacuuming the database')
  }

  close(): Promise<void> {
    return this.ctx.close()
  }
}
