import { type AnySQLiteColumn, index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The model settings a session ran with (`sessions.model_config`, stored as JSON): the window its context
 * was measured against, the reply budget, the model. Each field is optional; other keys (a Hermes
 * `model_config`'s own, say) are kept as they are, as long as the whole is JSON.
 */
export interface SessionModelConfig {
  /** The main model's context window, in tokens. */
  contextWindow?: number
  /** The reply budget: the most tokens one answer may take (`max_tokens`). */
  maxTokens?: number
  /** The model id the session ran with. */
  model?: string
  /** Who served the model (openai, anthropic, offline, ...). */
  provider?: string
  [key: string]: unknown
}

export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    source: text('source').notNull(),
    userId: text('user_id'),
    model: text('model'),
    title: text('title'),
    systemPrompt: text('system_prompt'),
    /** The model settings the session ran with (its window above all), as JSON text; null when not recorded. */
    modelConfig: text('model_config', { mode: 'json' }).$type<SessionModelConfig>(),
    /** The session this one continues (compression); detached (set null) when the parent is deleted. */
    parentSessionId: text('parent_session_id').references((): AnySQLiteColumn => sessions.id, {
      onDelete: 'set null',
    }),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    endReason: text('end_reason'),
    /** Kept by triggers on messages (migration 0003), so listing sessions never counts their messages. */
    messageCount: integer('message_count').notNull().default(0),
    toolCallCount: integer('tool_call_count').notNull().default(0),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    costUsd: real('cost_usd').notNull().default(0),
  },
  (t) => [
    index('sessions_source_started_at_idx').on(t.source, t.startedAt),
    index('sessions_user_started_at_idx').on(t.userId, t.startedAt),
    index('sessions_parent_idx').on(t.parentSessionId),
  ],
)
