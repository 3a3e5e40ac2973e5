import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { sessions } from './sessions.ts'

/** Summaries of compressed conversation segments (Hermes' memory_episodes). */
export const episodes = sqliteTable(
  'episodes',
  {
    id: integer('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    summary: text('summary').notNull(),
    content: text('content'),
    importance: integer('importance').notNull().default(5),
    tokenCount: integer('token_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    lastHitAt: integer('last_hit_at'),
    hitCount: integer('hit_count').notNull().default(0),
    firstMessageId: integer('first_message_id'),
    lastMessageId: integer('last_message_id'),
    searchText: text('search_text'),
  },
  (t) => [
    index('episodes_session_idx').on(t.sessionId),
    index('episodes_eviction_idx').on(t.importance, t.lastHitAt),
    check('episodes_importance_check', sql`${t.importance} BETWEEN 0 AND 10`),
  ],
)
