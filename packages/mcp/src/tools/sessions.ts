import {
  createSessionSearchTool,
  describeSession,
  messageText,
  type SessionLine,
  type SessionSearchResult,
  sessionLine,
} from '@engram/agent'
import { EngramError, type Session, type StoredMessage } from '@engram/core'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { BUDGETS } from '../budget.ts'
import type { McpStore, ToolDeps } from '../deps.ts'
import { describeScope, type Scope, scopeKey } from '../scope.ts'
import { sessionSummary } from '../session-text.ts'
import { guarded, runAgentTool } from '../tool-result.ts'
import { READ_ONLY, scopeShape } from './shared.ts'

const SEARCH_LIMIT = 10
const READ_RADIUS = 20
const LIST_LIMIT = 20
const MIN_PREFIX = 4

const sessionShape = z.object({
  id: z.string(),
  title: z.string().nullable(),
  source: z.string(),
  startedAt: z.string(),
  messageCount: z.number(),
})

/** A message a session_search result quotes; `hit` marks the one the search found. */
const quotedShape = z.object({
  id: z.number(),
  role: z.string(),
  text: z.string(),
  hit: z.boolean(),
})

/** One hit: a summary (`summary`) or a message with the messages around it (`messageId`, `messages`). */
const hitShape = z.object({
  kind: z.enum(['summary', 'message']),
  sessionId: z.string(),
  source: z.string(),
  title: z.string().nullable(),
  timestamp: z.number(),
  summary: z.string().optional(),
  messageId: z.number().optional(),
  messages: z.array(quotedShape).optional(),
})

/**
 * session_search's data as fields: `hits` for a query; `session`, `messages` and `total` (the session's
 * message count; fewer are shown when it is long) for a session_id; `sessions` for neither.
 */
function searchData(result: SessionSearchResult) {
  switch (result.kind) {
    case 'hits':
      return { kind: result.kind, hits: result.hits }
    case 'session':
      return {
        kind: result.kind,
        session: sessionSummary(result.session),
        messages: result.messages,
        total: result.total,
      }
    case 'recent':
      return { kind: result.kind, sessions: result.sessions.map(sessionSummary) }
  }
}

/**
 * The session a full id or a unique prefix names, inside the scope only: a session of another user or
 * project is reported as not found, exactly like one that does not exist, so ids cannot be probed.
 */
async function resolveInScope(store: McpStore, scope: Scope, reference: string): Promise<Session> {
  try {
    return await store.resolveSession(reference, { userId: scopeKey(scope), minPrefix: MIN_PREFIX })
  } catch (error) {
    if (!(error instanceof EngramError && error.code === 'SESSION_NOT_FOUND')) throw error
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `No session with id or prefix ${JSON.stringify(reference)} in the scope of this server (${describeScope(scope)}). Call sessions_list or session_search and copy an id (at least ${MIN_PREFIX} characters).`,
      { cause: error },
    )
  }
}

export function registerSessionTools(server: McpServer, deps: ToolDeps): void {
  const { store, scope, budget } = deps
  // The agent's own tool: the same ranking, windows and ~1,000-token budget as inside an agent loop.
  const search = createSessionSearchTool(store, {
    maxTokens: BUDGETS.search,
    sessionMaxTokens: BUDGETS.read,
    tokenCounter: budget.counter,
  })

  server.registerTool(
    'session_search',
    {
      title: 'Search past sessions',
      description: `Full-text search over every past conversation of this user (any language): ranked hits, summaries first, each with a few messages around it, the whole result within about ${BUDGETS.search} tokens. With session_id instead: that session's messages (about ${BUDGETS.read} tokens; session_read pages through it). With neither: the recent sessions.`,
      inputSchema: z.strictObject({
        query: z
          .string()
          .trim()
          .min(1)
          .max(1_000)
          .optional()
          .describe('Words to look for; a "quoted phrase"; prefix*'),
        session_id: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .describe('A session id (or a unique prefix of ≥ 4 characters) from a result'),
        limit: z.int().min(1).max(SEARCH_LIMIT).default(5).describe(`Hits to return (1–${SEARCH_LIMIT})`),
      }),
      outputSchema: z.object({
        ...scopeShape,
        query: z.string().nullable(),
        tokens: z.number(),
        kind: z.enum(['hits', 'session', 'recent']),
        hits: z.array(hitShape).optional(),
        session: sessionShape.optional(),
        messages: z.array(quotedShape).optional(),
        total: z.number().optional(),
        sessions: z.array(sessionShape).optional(),
      }),
      annotations: READ_ONLY,
    },
    ({ query, session_id, limit }) =>
      guarded('session_search', scope, async () => {
        const { text, data } = await runAgentTool(
          search,
          { ...(query ? { query, limit } : {}), ...(session_id ? { session_id } : {}) },
          { userId: scopeKey(scope) },
        )
        return { text, data: { query: query ?? null, tokens: budget.count(text), ...searchData(data) } }
      }),
  )

  server.registerTool(
    'session_read',
    {
      title: 'Read a session',
      description: `Reads one past session: from offset (a message index, default 0) or a window around message_id (from session_search). One page holds about ${BUDGETS.read} tokens, each message clipped to ${BUDGETS.message}; next_offset continues.`,
      inputSchema: z.strictObject({
        session_id: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .describe('A session id or a unique prefix (≥ 4 characters)'),
        message_id: z.int().min(1).optional().describe('Show the messages around this message id'),
        radius: z.int().min(0).max(READ_RADIUS).default(3).describe('Messages on each side of message_id'),
        offset: z.int().min(0).default(0).describe('Index of the first message to show (paging)'),
      }),
      outputSchema: z.object({
        ...scopeShape,
        session: sessionShape,
        messages: z.array(
          z.object({
            id: z.number(),
            index: z.number(),
            role: z.string(),
            timestamp: z.number(),
            text: z.string(),
          }),
        ),
        nextOffset: z.number().nullable(),
        tokens: z.number(),
      }),
      annotations: READ_ONLY,
    },
    (args) =>
      guarded('session_read', scope, async () => {
        const session = sessionLine(await resolveInScope(store, scope, args.session_id), budget.counter)
        const messages = await store.getStoredMessages(session.id)
        const { start, end } = window(messages, args)
        const header = `Session ${describeSession(session)}:`
        const lines = [header]
        const shown: { id: number; index: number; role: string; timestamp: number; text: string }[] = []
        let used = budget.count(header)
        let nextOffset: number | null = null
        for (let index = start; index < end; index++) {
          const message = messages[index] as StoredMessage
          const text = budget.clip(messageText(message), BUDGETS.message)
          const line = `#${message.id} [${index}] ${message.role}: ${text}`
          const cost = budget.count(line) + 1
          // The marker below costs at most ~40 tokens; it is kept inside the page's budget.
          if (used + cost > BUDGETS.read - 40) {
            nextOffset = index
            break
          }
          lines.push(line)
          shown.push({ id: message.id, index, role: message.role, timestamp: message.timestamp, text })
          used += cost
        }
        if (nextOffset === null && end < messages.length) nextOffset = end
        if (messages.length === 0) lines.push('(no messages)')
        if (nextOffset !== null) {
          lines.push(
            `[… more messages from index ${nextOffset} of ${messages.length}: call session_read with offset ${nextOffset} …]`,
          )
        }
        const text = lines.join('\n')
        return {
          text,
          data: { session: sessionSummary(session), messages: shown, nextOffset, tokens: budget.count(text) },
        }
      }),
  )

  server.registerTool(
    'sessions_list',
    {
      title: 'List recent sessions',
      description: `Lists this user's sessions, newest first, ${LIST_LIMIT} at most per page (about ${BUDGETS.list} tokens); next_offset continues.`,
      inputSchema: z.strictObject({
        limit: z.int().min(1).max(LIST_LIMIT).default(10).describe(`Sessions per page (1–${LIST_LIMIT})`),
        offset: z.int().min(0).max(100_000).default(0).describe('Sessions to skip (paging)'),
      }),
      outputSchema: z.object({
        ...scopeShape,
        sessions: z.array(sessionShape),
        nextOffset: z.number().nullable(),
        tokens: z.number(),
      }),
      annotations: READ_ONLY,
    },
    ({ limit, offset }) =>
      guarded('sessions_list', scope, async () => {
        // One extra row says whether another page follows.
        const page = await store.listSessions({ userId: scopeKey(scope), limit: limit + 1, offset })
        const sessions = page.slice(0, limit)
        const header =
          sessions.length === 0
            ? offset === 0
              ? 'No sessions yet in this scope.'
              : 'No more sessions.'
            : 'Sessions, newest first (read one with session_read):'
        const lines = [header]
        const shown: SessionLine[] = []
        // The paging line costs at most ~20 tokens; it is kept inside the page's budget.
        let used = budget.count(header) + 20
        for (const session of sessions.map((s) => sessionLine(s, budget.counter))) {
          const line = `- ${describeSession(session)}`
          used += budget.count(line) + 1
          if (used > BUDGETS.list) break
          lines.push(line)
          shown.push(session)
        }
        const more = shown.length < sessions.length || page.length > limit
        const nextOffset = more ? offset + shown.length : null
        if (nextOffset !== null) lines.push(`[more: call sessions_list with offset ${nextOffset}]`)
        const text = lines.join('\n')
        return {
          text,
          data: { sessions: shown.map(sessionSummary), nextOffset, tokens: budget.count(text) },
        }
      }),
  )
}

/** The messages a session_read call asks for: a window around a message id, or from an offset to the end. */
function window(
  messages: readonly StoredMessage[],
  args: { message_id?: number | undefined; radius: number; offset: number },
): { start: number; end: number } {
  if (args.message_id === undefined)
    return { start: Math.min(args.offset, messages.length), end: messages.length }
  const at = messages.findIndex((m) => m.id === args.message_id)
  if (at === -1) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Message ${args.message_id} is not in this session. Use a message id from session_search or session_read of the same session.`,
    )
  }
  return {
    start: Math.max(0, at - args.radius) + args.offset,
    end: Math.min(messages.length, at + args.radius + 1),
  }
}
