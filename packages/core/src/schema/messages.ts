import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { sessions } from './sessions.ts'

export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['system', 'user', 'assistant', 'tool'] }).notNull(),
    /** The text of the message: the string content, or the text parts of array content. */
    content: text('content'),
    /** Array content as JSON, kept losslessly; null when content is a plain string. */
    contentParts: text('content_parts'),
    toolCalls: text('tool_calls'),
    toolCallId: text('tool_call_id'),
    name: text('name'),
    timestamp: integer('timestamp').notNull(),
    tokenCount: integer('token_count'),
    /** What the full-text index sees when it differs from `content` (CJK split, tool calls added). */
    searchText: text('search_text'),
  },
  (t) => [
    index('messages_session_idx').on(t.sessionId),
    check('messages_role_check', sql`${t.role} IN ('system', 'user', 'assistant', 'tool')`),
  ],
)
