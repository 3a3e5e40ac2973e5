import type { episodes } from './schema/episodes.ts'
import type { SessionModelConfig, sessions } from './schema/sessions.ts'

/** Who speaks in a chat message. */
export type Role = 'system' | 'user' | 'assistant' | 'tool'

/** A call the assistant asks for: the OpenAI chat wire shape of a function tool call. */
export interface ToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A text part of array content. */
export interface TextPart {
  type: 'text'
  text: string
}

/** An image part of user content (a URL or a `data:` URL). */
export interface ImagePart {
  type: 'image_url'
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' }
}

/** An audio part of user content (base64 data). */
export interface AudioPart {
  type: 'input_audio'
  input_audio: { data: string; format: 'wav' | 'mp3' }
}

/** A file part of user content (inline data or an uploaded file's id). */
export interface FilePart {
  type: 'file'
  file: { file_data?: string; file_id?: string; filename?: string }
}

/**
 * A content part as the OpenAI chat API sends it. The store keeps any part it is given as it is (unknown
 * part types too); the type names the ones the chat API defines.
 */
export type ContentPart = TextPart | ImagePart | AudioPart | FilePart

/** The system prompt (or a system note): text only. */
export interface SystemMessage {
  role: 'system'
  content: string | TextPart[]
  name?: string
  // Absent on this role; declared so that `message.tool_calls` reads on any ChatMessage.
  tool_calls?: undefined
  tool_call_id?: undefined
}

/** What the user said: text, or parts with images, audio and files. */
export interface UserMessage {
  role: 'user'
  content: string | ContentPart[]
  name?: string
  tool_calls?: undefined
  tool_call_id?: undefined
}

/** The model's answer: text, tool calls, or both (`content` is null when there are only tool calls). */
export interface AssistantMessage {
  role: 'assistant'
  content: string | TextPart[] | null
  tool_calls?: ToolCall[]
  name?: string
  tool_call_id?: undefined
}

/** A tool's result, answering the assistant's call `tool_call_id`. */
export interface ToolMessage {
  role: 'tool'
  content: string | TextPart[]
  tool_call_id: string
  name?: string
  tool_calls?: undefined
}

/**
 * A message in the OpenAI chat wire shape, discriminated by `role`: an array of them is assignable to
 * `openai`'s `ChatCompletionMessageParam[]` as it is, without a cast.
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/** A message to append: any chat message, with the optional bookkeeping the store records with it. */
/** Any content part: the chat API's, or one of another type, which the store keeps as it is. */
export type InputContentPart = ContentPart | { type: string; [key: string]: unknown }

export interface MessageInput {
  role: Role
  content?: string | InputContentPart[] | null
  tool_call_id?: string
  name?: string
  /** Objects, or a string that already holds their JSON (it is stored as is, never encoded twice). */
  tool_calls?: ToolCall[] | string
  tokenCount?: number
  /** Milliseconds since the epoch; defaults to now. */
  timestamp?: number
  /**
   * True for the agent's own retrieval traffic: a call of its memory or search tools, their results, a reply
   * that only reports what they found. Stored and exported as any message, but left out of search unless the
   * search passes `includeRetrieval`: the agent's echoes of a question must not outrank what was said.
   */
  retrieval?: boolean
}

/** A message for appendMessagesOnce: `ref` is the writer's own id for it, unique within the session. */
export interface RefMessageInput extends MessageInput {
  ref: string
}

/** What appendMessagesOnce did: the messages it wrote, and the refs the session already held (not written again). */
export interface AppendedOnce {
  stored: StoredMessage[]
  existing: string[]
}

/** Where a stored message sits: its id (insertion order), session, time and token count. */
export interface MessageRecord {
  id: number
  sessionId: string
  timestamp: number
  tokenCount: number | null
  /** Present (true) on the agent's retrieval traffic (see MessageInput.retrieval). */
  retrieval?: true
}

/** A chat message as stored: the message with its record. */
export type StoredMessage = ChatMessage & MessageRecord

export type { SessionModelConfig }

/** What createSession takes: a source (cli, telegram, cron, ...) and optional settings; id defaults to a UUID. */
export interface NewSession {
  source: string
  model?: string | null
  userId?: string | null
  title?: string | null
  systemPrompt?: string | null
  /** The model settings the session runs with (its window, reply budget, model); a continuation keeps them. */
  modelConfig?: SessionModelConfig | null
  parentSessionId?: string | null
  id?: string
}

/** A session row as the schema defines it (`sessions.$inferSelect`): counters and totals included. */
export type Session = typeof sessions.$inferSelect

/** Paging of a list: `limit` items after `offset`, or after the `cursor` of the previous page (keyset). */
export interface PageOptions {
  /** 1 to 1000. */
  limit?: number
  offset?: number
  /** The previous page's `nextCursor`: pages stay exact while rows are being added. Not with `offset`. */
  cursor?: string
}

/** One page of a keyset-paged list; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** Filters and paging of listSessions / listSessionsPage (newest first). */
export interface ListSessionsOptions extends PageOptions {
  source?: string
  userId?: string
  /** Only sessions whose id starts with this text (exactly, case-sensitive): resolving a short id. */
  idPrefix?: string
  /** Only sessions started at or after this time (ms since the epoch). */
  startedAfter?: number
  /** Only sessions started before this time (ms since the epoch). */
  startedBefore?: number
}

/** Paging of getStoredMessagesPage (oldest first, by id). */
export interface MessagesPageOptions {
  /** 1 to 1000; default 100. */
  limit?: number
  /** The previous page's `nextCursor`. */
  cursor?: string
  /** Start at this message id (a link to one message); not with `cursor`. */
  fromId?: number
}

/** Which model calls dailyUsage sums: one session or all, within [since, until) (ms since the epoch). */
export interface DailyUsageOptions {
  sessionId?: string
  since?: number
  until?: number
}

/** The model calls of one purpose on one UTC day, summed. */
export interface DailyUsage {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string
  purpose: UsagePurpose
  calls: number
  inputTokens: number
  outputTokens: number
  costUsd: number
}

/** Why a model was called: the main loop or an auxiliary task (any other name is allowed). */
export type UsagePurpose = 'main' | 'compression' | 'nudge' | 'search' | 'scan' | (string & {})

/** One model call for recordUsage: whole token counts, an optional cost (USD) and latency (ms). */
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

/** Sums over model calls. */
export interface UsageTotals {
  calls: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  costUsd: number
}

/** The totals of one (purpose, model) pair: a row of usageGroups(), and what importSession takes. */
export interface UsageGroup extends UsageTotals {
  purpose: UsagePurpose
  model: string
}

/** What usage() returns: totals overall, by purpose and by model. */
export interface UsageReport {
  total: UsageTotals
  byPurpose: Record<string, UsageTotals>
  byModel: Record<string, UsageTotals>
}

/** What addEpisode takes: a summary on a session, with the message-id range it stands for. */
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

/** An episode row as the schema defines it, without the search text the index reads. */
export type Episode = Omit<typeof episodes.$inferSelect, 'searchText'>

/** What pruneEpisodes keeps: at most `maxCount` episodes, and at most `maxTokens` tokens of them. */
export interface PruneEpisodesOptions {
  maxCount?: number
  maxTokens?: number
}

/** What pruneSessions removes: ended sessions older than `olderThanDays`, of one source if given. */
export interface PruneSessionsOptions {
  olderThanDays: number
  source?: string
}

/** What pruneSessions would remove, without removing it: the sessions, newest first, and their number. */
export interface PrunePreview {
  count: number
  sessions: Session[]
}

/**
 * A session written whole by importSession: the session with its own id and times, its messages (with
 * their timestamps), its usage totals and its episodes, whose message range is given as positions in
 * `messages` (0-based), since the stored ids are assigned on the way in.
 */
export interface ImportSessionInput {
  session: NewSession & {
    id: string
    startedAt: number
    endedAt?: number | null
    endReason?: string | null
  }
  /** With the writer's `ref` when it had one (appendMessagesOnce then skips it in the new store too). */
  messages?: (MessageInput & { ref?: string })[]
  /** Usage totals, one model_calls row per group stamped at the session's start. Not with `modelCalls`. */
  usage?: UsageGroup[]
  /** The model calls as recorded (exportSession's), each with its own time and latency. Not with `usage`. */
  modelCalls?: ModelCall[]
  /** `createdAt`, `lastHitAt` and `hitCount` default to now, null and 0. */
  episodes?: (Omit<NewEpisode, 'sessionId' | 'firstMessageId' | 'lastMessageId'> & {
    firstMessageIndex?: number | null
    lastMessageIndex?: number | null
    createdAt?: number
    lastHitAt?: number | null
    hitCount?: number
  })[]
}

/** One model_calls row: a recorded call (`calls` 1) or an imported total, with its time and latency. */
export interface ModelCall extends UsageGroup {
  latencyMs: number | null
  createdAt: number
}

/** A stored message with the writer's own id for it (appendMessagesOnce's `ref`), when it has one. */
export type ExportedMessage = StoredMessage & { ref?: string }

/**
 * Everything one session holds (exportSession): its row, messages with refs, episodes with their hit
 * statistics and model calls. importSession takes it back (episodes' message ids become positions).
 */
export interface SessionExport {
  session: Session
  messages: ExportedMessage[]
  episodes: Episode[]
  modelCalls: ModelCall[]
}

/**
 * How many migrations the schema had when openStore found it and has now: equal when it was up to date,
 * `before` 0 for a new database.
 */
export interface SchemaMigrations {
  before: number
  after: number
}

/** What importSession did: `created` is false when a session with that id was there already (nothing written). */
export interface ImportSessionResult {
  created: boolean
  session: Session
  messages: number
}

/** Which sessions a reference may resolve to: only those of this source and user, when given. */
export interface ResolveSessionOptions {
  source?: string
  /** null: only sessions without a user. */
  userId?: string | null
  /**
   * The fewest characters a prefix may have (a full id is taken whatever its length); a shorter one is
   * refused as `INVALID_ARGUMENT`. Default 1.
   */
  minPrefix?: number
}

/**
 * What checkIntegrity found. `status` names it in one word: `ok`; `busy` (another connection held the
 * write lock the index check needs: not damage, check again); `search-index` (an FTS index disagrees
 * with its table: rebuild it); `corrupt` (the file itself is damaged: restore or recover); `failed`.
 */
export interface IntegrityReport {
  ok: boolean
  status: 'ok' | 'busy' | 'search-index' | 'corrupt' | 'failed'
  /** What `PRAGMA integrity_check` reported: ['ok'] for a sound file, else the problems or the error. */
  database: string[]
  /** Each FTS5 index checked against its table: 'ok', the error, or 'not checked'. */
  searchIndex: { messages: string; episodes: string }
  /** What to do about it; null when ok. */
  fix: string | null
}

/** What continueSession takes: why the parent ends, the child's first messages, and an optional episode. */
export interface ContinueSessionInput {
  /** Why the parent ended (`compression` for the compressor). */
  endReason: string
  /** The history the child starts with. */
  messages: readonly MessageInput[]
  /** A summary to store on the parent, pointing at the message-id range it replaced. */
  episode?: Omit<NewEpisode, 'sessionId'>
}

/** What continueSession returns: the child session, its stored messages and the parent's episode. */
export interface ContinuedSession {
  session: Session
  messages: StoredMessage[]
  episode: Episode | null
}

/**
 * Filters, order and paging of search / searchPage: `since`/`until` are milliseconds since the epoch
 * (`since` inclusive), `sort` relevance (default), newest or oldest.
 */
/** How many messages of the same session `readAround` returns on each side of the message. */
export interface ReadAroundOptions {
  /** 0 to 100, default 2. */
  before?: number
  /** 0 to 100, default 2. */
  after?: number
}

/**
 * What `search` and `searchPage` look in and how they order it. Every filter runs in SQL, so `limit` counts
 * hits that passed them; the default limit is 10.
 */
export interface SearchOptions extends PageOptions {
  /** Only this session's messages and episodes. */
  sessionId?: string
  /**
   * Leaves out this session's compression chain: the session, its ancestors and its descendants (through
   * `parentSessionId`, between sessions of one user). One recursive subquery of the same statement, so a
   * failure fails the search; an unknown id leaves out nothing else.
   */
  excludeLineageOf?: string
  /** Only sessions of this source (or of any of these). */
  source?: string | string[]
  /** No sessions of these sources. */
  excludeSources?: string[]
  /** Only messages of this role (or these roles); episodes are left out when a role is given. */
  role?: Role | Role[]
  /** Only this user's sessions: a security boundary, never another user's rows. */
  userId?: string
  /** Messages written (episodes created) at or after this time, ms since the epoch. */
  since?: number
  /** Messages written (episodes created) before this time, ms since the epoch. */
  until?: number
  /** `relevance` (default: BM25, questions ranked with their conversation), or time order. */
  sort?: 'relevance' | 'newest' | 'oldest'
  /** Episodes (summaries) before messages; default true. */
  includeEpisodes?: boolean
  /**
   * The agent's own retrieval traffic too (messages stored with `retrieval: true`: its searches, their
   * results and the replies that only report them); default false, so they never outrank what was said.
   */
  includeRetrieval?: boolean
  /** The current time (ms) that relative dates in the query ("last week", 上周) resolve against; default now. */
  now?: number
}

interface SearchHitBase {
  sessionId: string
  /** Text of the hit around its first match, matches marked «like this», cut marks …. */
  snippet: string
  /** BM25 relevance (higher is better), with the conversation ranking's weights for questions. */
  score: number
  /** When the message was written or the episode created, ms since the epoch. */
  timestamp: number
  /** The session's source. */
  source: string
}

/** A message that matched. */
export interface MessageHit extends SearchHitBase {
  kind: 'message'
  messageId: number
  episodeId?: undefined
  role: Role
}

/** An episode (a summary of a compressed segment) that matched. */
export interface EpisodeHit extends SearchHitBase {
  kind: 'episode'
  episodeId: number
  messageId?: undefined
  role: 'episode'
}

/** One search result, told apart by `kind`: a message or an episode. */
export type SearchHit = MessageHit | EpisodeHit
