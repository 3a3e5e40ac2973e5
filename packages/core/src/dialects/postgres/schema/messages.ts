import { sql } from 'drizzle-orm'
import { check, index, pgTable, text } from 'drizzle-orm/pg-core'
import { int, rowId, searchVector } from './columns.ts'
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
    searchVector: searchVector('content'),
  },
  (t) => [
    index('messages_session_idx').on(t.sessionId, t.id),
    index('messages_search_idx').using('gin', t.searchVector),
    check('messages_role_check', sql`${t.role} IN ('system', 'user', 'assistant', 'tool')`),
  ],
)
