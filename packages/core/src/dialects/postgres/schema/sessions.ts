import { type AnyPgColumn, doublePrecision, index, pgTable, text } from 'drizzle-orm/pg-core'
import { int } from './columns.ts'

/** The sessions table of the PostgreSQL dialect: the columns of the SQLite schema, in PostgreSQL types. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    source: text('source').notNull(),
    userId: text('user_id'),
    model: text('model'),
    title: text('title'),
    systemPrompt: text('system_prompt'),
    /** JSON text, as SQLite's (the store reads and writes it through the SQLite schema's JSON column). */
    modelConfig: text('model_config'),
    parentSessionId: text('parent_session_id').references((): AnyPgColumn => sessions.id, {
      onDelete: 'set null',
    }),
    startedAt: int('started_at').notNull(),
    endedAt: int('ended_at'),
    endReason: text('end_reason'),
    /** Kept by triggers on messages (migration 0001), like SQLite's. */
    messageCount: int('message_count').notNull().default(0),
    toolCallCount: int('tool_call_count').notNull().default(0),
    inputTokens: int('input_tokens').notNull().default(0),
    outputTokens: int('output_tokens').notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    /**
     * Insertion order, named as SQLite's implicit rowid so the store's SQL breaks ties between sessions
     * started in the same millisecond the same way on both engines.
     */
    rowid: int('rowid').notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [
    index('sessions_source_started_at_idx').on(t.source, t.startedAt),
    index('sessions_user_started_at_idx').on(t.userId, t.startedAt),
    index('sessions_parent_idx').on(t.parentSessionId),
  ],
)
