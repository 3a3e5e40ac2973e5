import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
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
    /** The writer's own id for the message (an MCP client's message id), unique in its session; null when none. */
    ref: text('ref'),
    /**
     * 1 when the message is the agent's own retrieval traffic (a call of its memory or search tools, their
     * results, a reply that only reports them); null otherwise. Kept and exported, left out of search
     * unless `includeRetrieval` (search-sql.ts).
     */
    retrieval: integer('retrieval'),
  },
  (t) => [
    index('messages_session_idx').on(t.sessionId),
    /**
     * Whether a word of a question names a speaker (conversation search): only named messages of the
     * conversation are in it (a tool result's `name` is its function's, and tool results are many).
     */
    index('messages_name_idx').on(t.name).where(sql`${t.name} IS NOT NULL AND ${t.role} <> 'tool'`),
    /**
     * A ref is unique in its session. Only rows with a ref are in it (migration 0013): plain appends leave
     * `ref` null, and a full index repeated every message's session id (about 54 bytes a message).
     */
    uniqueIndex('messages_session_ref_idx').on(t.sessionId, t.ref).where(sql`${t.ref} IS NOT NULL`),
    check('messages_role_check', sql`${t.role} IN ('system', 'user', 'assistant', 'tool')`),
  ],
)

/**
 * The messages not yet in the full-text index (SQLite: migration 0017). The insert trigger lists every new
 * row; the store indexes the listed rows in batches (dialects/sqlite/unindexed.ts).
 */
export const messagesUnindexed = sqliteTable('messages_unindexed', {
  id: integer('id').primaryKey(),
})
