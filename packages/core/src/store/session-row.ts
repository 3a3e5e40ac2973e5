import type { Session } from '../types.ts'

export const SESSION_SELECT = `SELECT s.id, s.source, s.user_id, s.model, s.title, s.system_prompt, s.parent_session_id,
  s.started_at, s.ended_at, s.end_reason, s.input_tokens, s.output_tokens, s.cost_usd, s.message_count,
  s.tool_call_count
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
