import { doublePrecision, index, pgTable, text } from 'drizzle-orm/pg-core'
import { int, rowId } from './columns.ts'
import { sessions } from './sessions.ts'

export const modelCalls = pgTable(
  'model_calls',
  {
    id: rowId('id'),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    purpose: text('purpose').notNull(),
    /** How many calls the row stands for: 1 for a recorded call, more for an imported aggregate. */
    calls: int('calls').notNull().default(1),
    inputTokens: int('input_tokens').notNull().default(0),
    outputTokens: int('output_tokens').notNull().default(0),
    cacheReadTokens: int('cache_read_tokens').notNull().default(0),
    cacheWriteTokens: int('cache_write_tokens').notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    latencyMs: int('latency_ms'),
    createdAt: int('created_at').notNull(),
  },
  (t) => [index('model_calls_session_idx').on(t.sessionId, t.purpose)],
)
