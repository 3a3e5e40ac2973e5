import { sql } from 'drizzle-orm'
import { check, index, pgTable, text } from 'drizzle-orm/pg-core'
import { int, ownerId, rowId, searchVector } from './columns.ts'
import { sessions } from './sessions.ts'

export const episodes = pgTable(
  'episodes',
  {
    id: rowId('id'),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    summary: text('summary').notNull(),
    content: text('content'),
    importance: int('importance').notNull().default(5),
    tokenCount: int('token_count').notNull().default(0),
    createdAt: int('created_at').notNull(),
    lastHitAt: int('last_hit_at'),
    hitCount: int('hit_count').notNull().default(0),
    firstMessageId: int('first_message_id'),
    lastMessageId: int('last_message_id'),
    searchText: text('search_text'),
    userId: ownerId(),
    searchVector: searchVector('summary'),
  },
  (t) => [
    index('episodes_session_idx').on(t.sessionId),
    index('episodes_eviction_idx').on(t.importance, t.lastHitAt),
    index('episodes_search_idx').using('gin', t.userId, t.searchVector),
    check('episodes_importance_check', sql`${t.importance} BETWEEN 0 AND 10`),
  ],
)
