import { index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { sessions } from './sessions.ts'

/** One row per model call, so main versus auxiliary token use can be read from the database. */
export const modelCalls = sqliteTable(
  'model_calls',
  {
    id: integer('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    purpose: text('purpose').notNull(),
    /** How many calls the row stands for: 1 for a recorded call, more for an imported aggregate. */
    calls: integer('calls').notNull().default(1),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheWriteTokens: integer('cache_write_tokens').notNull().default(0),
    costUsd: real('cost_usd').notNull().default(0),
    latencyMs: integer('latency_ms'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('model_calls_session_idx').on(t.sessionId, t.purpose)],
)
