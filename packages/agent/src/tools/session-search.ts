import { bpeTokenCounter, clipToTokens, type TokenCounter } from '@engram/compressor'
import { EngramError, type SearchHit, type Session, type Store } from '@engram/core'
import { z } from 'zod'
import { defineTool } from './run-tool.ts'
import { describeSession, flat, messageText, type SessionLine, sessionLine, when } from './session-text.ts'
import type { AgentTool, ToolContext } from './tool.ts'

/** The part of the store the tool reads. */
export type SessionSearchStore = Pick<
  Store,
  | 'search'
  | 'listSessions'
  | 'resolveSession'
  | 'getSession'
  | 'getStoredMessages'
  | 'getLineage'
  | 'getEpisodes'
  | 'readAround'
>

export interface SessionSearchOptions {
  /** Counts the tokens of a result; defaults to the project's BPE counter. */
  tokenCounter?: TokenCounter
  /** Budget of a search result, default 1,000 tokens: windows are trimmed first, then hits dropped. */
  maxTokens?: number
  /** Budget of one session's transcript, default 2,000 tokens; longer ones end with a marker. */
  sessionMaxTokens?: number
}

const DEFAULT_LIMIT = 5
const MAX_LIMIT = 10
const RECENT_SESSIONS = 10
const MIN_PREFIX = 4
/** Tokens of one message when a session is read. */
const SESSION_MESSAGE_TOKENS = 300
/** From the widest window to the narrowest: messages on each side of a hit, tokens per message. */
const WINDOWS = [
  { radius: 2, clip: 150 },
  { radius: 1, clip: 100 },
  { radius: 1, clip: 50 },
  { radius: 0, clip: 80 },
  { radius: 0, clip: 40 },
]

const WIDEST = Math.max(...WINDOWS.map((w) => w.radius))
/** Tokens of the one hit left when even it does not fit at the narrowest window. */
const LAST_RESORT_CLIPS = [20, 10, 5, 1]

const input = z
  .object({
    query: z
      .string()
      .describe(
        'Words to look for in past conversations (any language). Returns ranked hits, summaries first.',
      )
      .optional(),
    session_id: z
      .string()
      .describe(
        'A session id (or a unique prefix of at least 4 characters) from an earlier result: returns its messages.',
      )
      .optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .describe(`How many hits to return for a query (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).`)
      .optional(),
  })
  .strict()

/** Characters of the caller's query or id echoed in a result: any input leaves the result in its budget. */
const ECHO_CHARS = 80

/** The caller's text, quoted, cut to ECHO_CHARS characters (with a mark) so that no echo is unbounded. */
function quoted(text: string): string {
  return JSON.stringify(text.length > ECHO_CHARS ? `${text.slice(0, ECHO_CHARS)}…` : text)
}

/** A message quoted in a result, its text on one line and clipped; `hit` marks the one a search found. */
interface QuotedMessage {
  id: number
  role: string
  text: string
  hit: boolean
}

/** One hit of a query: a summary of a compressed part, or a message with the messages around it. */
type FoundHit = {
  sessionId: string
  source: string
  /** The session's title, clipped. */
  title: string | null
  /** Epoch milliseconds. */
  timestamp: number
} & ({ kind: 'summary'; summary: string } | { kind: 'message'; messageId: number; messages: QuotedMessage[] })

/**
 * What `session_search` found, as data (the model reads its rendering): the hits of a query, fitted to the
 * result's budget; one session's messages (`total` of them in all, the first `messages.length` shown); or
 * the recent sessions.
 */
export type SessionSearchResult =
  | { kind: 'hits'; query: string; hits: FoundHit[] }
  | { kind: 'session'; session: SessionLine; messages: QuotedMessage[]; total: number }
  | { kind: 'recent'; sessions: SessionLine[] }

function memo<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let value = cache.get(key)
  if (!value) {
    value = load()
    cache.set(key, value)
  }
  return value
}

/** What this agent may see: its user's sessions, minus the current conversation's compression chain. */
class Visibility {
  private readonly verdicts = new Map<string, Promise<boolean>>()
  private chain: Promise<Set<string>> | undefined

  constructor(
    private readonly store: SessionSearchStore,
    private readonly context: ToolContext,
  ) {}

  /** The current session and its ancestors. */
  private ancestors(): Promise<Set<string>> {
    const current = this.context.sessionId
    this.chain ??=
      current === undefined
        ? Promise.resolve(new Set())
        : this.store.getLineage(current).then((lineage) => new Set([current, ...lineage.map((s) => s.id)]))
    return this.chain
  }

  /** In the current chain: an ancestor, the session itself, or a descendant (whose lineage holds it). */
  inCurrentChain(sessionId: string): Promise<boolean> {
    return memo(this.verdicts, sessionId, async () => {
      if (this.context.sessionId === undefined) return false
      if ((await this.ancestors()).has(sessionId)) return true
      // an error fails the call: what cannot be checked is not shown
      const lineage = await this.store.getLineage(sessionId)
      return lineage.some((s) => s.id === this.context.sessionId)
    })
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

const quotedLine = (m: QuotedMessage) => `${m.hit ? '>' : ' '} ${m.role}: ${m.text}`

const sessionMessageLine = (m: QuotedMessage) => `${m.role}: ${m.text}`

function renderHit(hit: FoundHit, index: number): string {
  const title = hit.title ? ` · ${JSON.stringify(hit.title)}` : ''
  const header = `[${index + 1}] ${hit.kind} · session ${hit.sessionId} · ${when(hit.timestamp)} · ${hit.source}${title}`
  const body = hit.kind === 'summary' ? [hit.summary] : hit.messages.map(quotedLine)
  return [header, ...body].join('\n')
}

/** The text the model reads for a `session_search` result. Linear in the data. */
export function renderSessionSearch(result: SessionSearchResult): string {
  switch (result.kind) {
    case 'hits':
      if (result.hits.length === 0)
        return `No past session matches ${quoted(result.query)}. Try other or fewer words, or call session_search without a query to list recent sessions.`
      return [
        `${plural(result.hits.length, 'result')} for ${quoted(result.query)} from past sessions (summaries first; call session_search with a session_id to read one):`,
        ...result.hits.map(renderHit),
      ].join('\n\n')
    case 'session': {
      const { messages, total } = result
      const lines = [`Session ${describeSession(result.session)}:`, ...messages.map(sessionMessageLine)]
      if (total === 0) lines.push('(no messages)')
      else if (messages.length < total)
        lines.push(
          `[… ${total - messages.length} more messages not shown (messages ${messages.length + 1}–${total} of ${total}); search with a query to find a specific part …]`,
        )
      return lines.join('\n')
    }
    case 'recent':
      if (result.sessions.length === 0)
        return 'No past sessions yet (the current conversation is not listed).'
      return [
        'Recent sessions, newest first (call session_search with a session_id to read one, or a query to search all):',
        ...result.sessions.map((s) => `- ${describeSession(s)}`),
      ].join('\n')
  }
}

/** A hit with what its widest window holds; `shape` cuts it to a window. */
interface PreparedHit {
  shape(radius: number, clip: number): FoundHit
}

class SessionSearch {
  private readonly sessions = new Map<string, Promise<Session | null>>()
  private readonly visibility: Visibility
  private readonly counter: TokenCounter
  private readonly maxTokens: number
  private readonly sessionMaxTokens: number

  constructor(
    private readonly store: SessionSearchStore,
    private readonly context: ToolContext,
    options: SessionSearchOptions,
  ) {
    this.visibility = new Visibility(store, context)
    this.counter = options.tokenCounter ?? bpeTokenCounter
    this.maxTokens = options.maxTokens ?? 1_000
    this.sessionMaxTokens = options.sessionMaxTokens ?? 2_000
  }

  private clip(text: string, tokens: number): string {
    return clipToTokens(this.counter, text, tokens)
  }

  private fits(result: SessionSearchResult): boolean {
    return this.counter.countText(renderSessionSearch(result)) <= this.maxTokens
  }

  async query(query: string, limit: number): Promise<SessionSearchResult> {
    const found = await this.visibleHits(query, limit)
    const prepared = await Promise.all(found.map((hit) => this.prepare(hit)))
    const shaped = (count: number, radius: number, clip: number): SessionSearchResult => ({
      kind: 'hits',
      query,
      hits: prepared.slice(0, count).map((hit) => hit.shape(radius, clip)),
    })
    for (const { radius, clip } of WINDOWS) {
      const result = shaped(prepared.length, radius, clip)
      if (this.fits(result)) return result
    }
    // Even the narrowest windows are too long: drop hits from the least relevant end, then clip the last.
    const narrowest = WINDOWS[WINDOWS.length - 1] as (typeof WINDOWS)[number]
    for (let count = prepared.length - 1; count > 1; count--) {
      const result = shaped(count, narrowest.radius, narrowest.clip)
      if (this.fits(result)) return result
    }
    let last = shaped(1, 0, narrowest.clip)
    for (const clip of LAST_RESORT_CLIPS) {
      if (this.fits(last)) break
      last = shaped(1, 0, clip)
    }
    return last
  }

  /** Hits outside the current chain (left out by the store) and inside the user's scope, episodes first. */
  private async visibleHits(query: string, limit: number): Promise<SearchHit[]> {
    const { sessionId, userId } = this.context
    const hits = await this.store.search(query, {
      limit,
      ...(sessionId === undefined ? {} : { excludeLineageOf: sessionId }),
      ...(userId === undefined ? {} : { userId }),
    })
    return hits.sort((a, b) => Number(a.kind === 'message') - Number(b.kind === 'message'))
  }

  private session(id: string): Promise<Session | null> {
    return memo(this.sessions, id, () => this.store.getSession(id))
  }

  private async prepare(hit: SearchHit): Promise<PreparedHit> {
    const session = await this.session(hit.sessionId)
    const place = {
      sessionId: hit.sessionId,
      source: hit.source,
      title: session ? sessionLine(session, this.counter).title : null,
      timestamp: hit.timestamp,
    }
    if (hit.kind === 'episode') {
      const episodes = await this.store.getEpisodes(hit.sessionId)
      const summary = flat(episodes.find((e) => e.id === hit.episodeId)?.summary ?? hit.snippet)
      return {
        shape: (radius, clip) => ({
          ...place,
          kind: 'summary',
          summary: this.clip(summary, clip * (radius + 1)),
        }),
      }
    }
    // the widest window's messages, read by id: bounded, whatever the session's length
    const around = await this.store.readAround(hit.messageId, { before: WIDEST, after: WIDEST })
    const at = around.findIndex((m) => m.id === hit.messageId)
    const snippet = flat(hit.snippet)
    // Each message's text once, whichever windows are tried.
    const texts = new Map(around.map((m) => [m, messageText(m)]))
    return {
      shape: (radius, clip) => ({
        ...place,
        kind: 'message',
        messageId: hit.messageId,
        messages:
          at === -1
            ? [{ id: hit.messageId, role: hit.role, text: this.clip(snippet, clip), hit: true }]
            : around.slice(Math.max(0, at - radius), at + radius + 1).map((m) => {
                const isHit = m.id === hit.messageId
                const whole = texts.get(m) ?? ''
                const text = isHit ? this.hitText(whole, snippet, clip) : this.clip(whole, clip)
                return { id: m.id, role: m.role, text, hit: isHit }
              }),
      }),
    }
  }

  /**
   * The hit message whole when it fits, else the search snippet around the match. Clipping is what tells
   * (it returns the text itself when it fits): it counts in proportion to `clip`, never the whole text.
   */
  private hitText(text: string, snippet: string, clip: number): string {
    return this.clip(text, clip) === text ? text : this.clip(snippet, clip)
  }

  async read(reference: string): Promise<SessionSearchResult> {
    const session = await this.resolve(reference)
    if (await this.visibility.inCurrentChain(session.id)) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `Session ${session.id} is the current conversation (or part of its compression chain); its content is already in your context. Search for other sessions instead.`,
      )
    }
    const stored = await this.store.getStoredMessages(session.id)
    const result = {
      kind: 'session' as const,
      session: sessionLine(session, this.counter),
      messages: [] as QuotedMessage[],
      total: stored.length,
    }
    // The marker line costs at most ~30 tokens; it is kept inside the budget.
    let used = this.counter.countText(renderSessionSearch(result))
    for (const message of stored) {
      const quotedMessage = {
        id: message.id,
        role: message.role,
        text: this.clip(messageText(message), SESSION_MESSAGE_TOKENS),
        hit: false,
      }
      const cost = this.counter.countText(sessionMessageLine(quotedMessage)) + 1
      if (used + cost > this.sessionMaxTokens - 30) break
      result.messages.push(quotedMessage)
      used += cost
    }
    return result
  }

  /** The session a full id or a unique prefix names, among the user's sessions (the store resolves it). */
  private async resolve(reference: string): Promise<Session> {
    const { userId } = this.context
    try {
      return await this.store.resolveSession(reference, {
        minPrefix: MIN_PREFIX,
        ...(userId === undefined ? {} : { userId }),
      })
    } catch (error) {
      if (!(error instanceof EngramError && error.code === 'SESSION_NOT_FOUND')) throw error
      throw new EngramError(
        'SESSION_NOT_FOUND',
        `No session with id or prefix ${quoted(reference)}. Call session_search without arguments to list recent sessions and copy an id.`,
        { cause: error },
      )
    }
  }

  async recent(): Promise<SessionSearchResult> {
    const { userId } = this.context
    const sessions = await this.store.listSessions({
      limit: RECENT_SESSIONS * 3,
      ...(userId === undefined ? {} : { userId }),
    })
    const shown: SessionLine[] = []
    for (const session of sessions) {
      if (shown.length < RECENT_SESSIONS && !(await this.visibility.inCurrentChain(session.id)))
        shown.push(sessionLine(session, this.counter))
    }
    return { kind: 'recent', sessions: shown }
  }
}

/**
 * The `session_search` tool over past conversations: with `query`, ranked hits (summary episodes first),
 * each with a small window of surrounding messages, the whole result within about 1,000 tokens (windows
 * are narrowed before hits are dropped); with `session_id` (or a unique prefix), that session's messages,
 * truncated with a marker; with neither, the recent sessions. The current session and its compression
 * chain (ancestors and descendants) are left out, and with `context.userId` set only that user's sessions
 * are visible. Cost: one search (a few when many hits belong to the current chain) and one read per
 * session shown.
 */
export function createSessionSearchTool(
  store: SessionSearchStore,
  options: SessionSearchOptions = {},
): AgentTool<SessionSearchResult> {
  return defineTool({
    name: 'session_search',
    retrieval: true,
    description: [
      'Search your past conversations with this user (everything ever said, including summaries of compressed parts).',
      'Give query to search; session_id to read one session; nothing to list recent sessions.',
      'The current conversation is not included: you already have it.',
    ].join(' '),
    input,
    async execute(args, context) {
      const search = new SessionSearch(store, context, options)
      const query = typeof args.query === 'string' ? args.query.trim() : ''
      const sessionId = typeof args.session_id === 'string' ? args.session_id.trim() : ''
      if (query && sessionId) {
        throw new EngramError('INVALID_ARGUMENT', 'Give either query or session_id, not both.')
      }
      if (sessionId) return search.read(sessionId)
      if (query) return search.query(query, args.limit ?? DEFAULT_LIMIT)
      return search.recent()
    },
    render: renderSessionSearch,
  })
}
