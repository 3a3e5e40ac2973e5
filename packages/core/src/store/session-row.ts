import type { Session } from '../types.ts'

// Message and tool-call counts are derived from the messages table (through its session index) rather
// than kept as counters, so an append is one INSERT and does not also rewrite the session row.
export const SESSION_SELECT = `SELECT s.id, s.source, s.user_id, s.model, s.title, s.system_prompt, s.parent_session_id,
  s.started_at, s.ended_at, s.end_reason, s.input_tokens, s.output_tokens, s.cost_usd,
  (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count,
  (SELECT coalesce(sum(json_array_length(m.tool_calls)), 0) FROM messages m
    WHERE m.session_id = s.id AND m.tool_calls IS NOT NULL) AS tool_call_count
FROM sessions s`

export interface SessionRow {
  id: string
  source: string
  user_id: string | null
  model: string | null
  title: string | null
  system_prompt: string | null
  parent_session_id: string | null
  started_at: number
  ended_at: number | null
  end_reason: string | null
  input_tokens: number
  output_tokens: number
  cost_usd: number
  message_count: number
  tool_call_count: number
}

export function decodeSession(row: SessionRow): Session {
  return {
    id: row.id,
    source: row.source,
    userId: row.user_id,
    model: row.model,
    title: row.title,
    systemPrompt: row.system_prompt,
    parentSessionId: row.parent_session_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    endReason: row.end_reason,
    messageCount: row.message_count,
    toolCallCount: row.tool_call_count,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
  }
}
