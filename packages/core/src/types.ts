import type { RankFeatures } from './search/rank.ts'

export type Role = 'system' | 'user' | 'assistant' | 'tool'

export interface ToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A content part as the OpenAI chat API sends it; unknown part types are kept as they are. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: string; [key: string]: unknown }

/** A message in the OpenAI chat wire shape: it can be handed to an SDK unchanged. */
export interface ChatMessage {
  role: Role
  content: string | ContentPart[] | null
  tool_calls?: ToolCall[]
  tool_call_id?: string
  name?: string
}

export interface MessageInput extends Omit<ChatMessage, 'tool_calls' | 'content'> {
  content?: string | ContentPart[] | null
  /** Objects, or a string that already holds their JSON (it is stored as is, never encoded twice). */
  tool_calls?: ToolCall[] | string
  tokenCount?: number
  /** Milliseconds since the epoch; defaults to now. */
  timestamp?: number
}

export interface StoredMessage extends ChatMessage {
  id: number
  sessionId: string
  timestamp: number
  tokenCount: number | null
}

export interface NewSession {
  source: string
  model?: string | null
  userId?: string | null
  title?: string | null
  systemPrompt?: string | null
  parentSessionId?: string | null
  id?: string
}

export interface Session {
  id: string
  source: string
  userId: string | null
  model: string | null
  title: string | null
  systemPrompt: string | null
  parentSessionId: string | null
  startedAt: number
  endedAt: number | null
  endReason: string | null
  messageCount: number
  toolCallCount: number
  inputTokens: number
  outputTokens: number
  costUsd: number
}

export interface ListSessionsOptions {
  source?: string
  userId?: string
  limit?: number
  offset?: number
}

export type UsagePurpose = 'main' | 'compression' | 'nudge' | 'search' | (string & {})

export interface UsageRecord {
  model: string
  purpose: UsagePurpose
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
  costUsd?: number
  latencyMs?: number
}

export interface UsageTotals {
  calls: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  costUsd: number
}

export interface UsageReport {
  total: UsageTotals
  byPurpose: Record<string, UsageTotals>
  byModel: Record<string, UsageTotals>
}

export interface NewEpisode {
  sessionId: string
  summary: string
  /** The text the summary stands for (optional: the archived messages stay in the store). */
  content?: string | null
  importance?: number
  tokenCount?: number
  firstMessageId?: number | null
  lastMessageId?: number | null
}

export interface Episode {
  id: number
  sessionId: string
  summary: string
  content: string | null
  importance: number
  tokenCount: number
  createdAt: number
  lastHitAt: number | null
  hitCount: number
  firstMessageId: number | null
  lastMessageId: number | null
}

export interface SearchOptions {
  limit?: number
  offset?: number
  sessionId?: string
  source?: string | string[]
  excludeSources?: string[]
  role?: Role | Role[]
  userId?: string
  since?: number
  until?: number
  sort?: 'relevance' | 'newest' | 'oldest'
  includeEpisodes?: boolean
  /** The current time (ms) that relative dates in the query ("last week", 上周) resolve against; default now. */
  now?: number
  /** For evaluation: turns single ranking techniques off (see search/rank.ts); all are on by default. */
  ranking?: Partial<RankFeatures>
}

export interface SearchHit {
  kind: 'message' | 'episode'
  sessionId: string
  messageId?: number
  episodeId?: number
  role: Role | 'episode'
  snippet: string
  score: number
  timestamp: number
  source: string
}
