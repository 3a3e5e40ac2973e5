import { sql } from 'drizzle-orm'
import { check, index, pgTable, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { int, ownerId, rowId, searchVector } from './columns.ts'
import { sessions } from './sessions.ts'

export const messages = pgTable(
  'messages',
  {
    id: rowId('id'),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['system', 'user', 'assistant', 'tool'] }).notNull(),
    content: text('content'),
    contentParts: text('content_parts'),
    toolCalls: text('tool_calls'),
    toolCallId: text('tool_call_id'),
    name: text('name'),
    timestamp: int('timestamp').notNull(),
    tokenCount: int('token_count'),
    searchText: text('search_text'),
    /** The writer's own id for the message (an MCP client's message id), unique in its session; null when none. */
    ref: text('ref'),
    /** 1 for the agent's own retrieval traffic, left out of search unless `includeRetrieval` (see the SQLite schema). */
    retrieval: smallint('retrieval'),
    userId: ownerId(),
    searchVector: searchVector('content'),
  },
  (t) => [
    index('messages_session_idx').on(t.sessionId, t.id),
    index('messages_search_idx').using('gin', t.userId, t.searchVector),
    uniqueIndex('messages_session_ref_idx').on(t.sessionId, t.ref),
    check('messages_role_check', sql`${t.role} IN ('system', 'user', 'assistant', 'tool')`),
  ],
)
