import { bpeTokenCounter, clipToTokens, type TokenCounter, textOf } from '@engram/compressor'
import { EngramError, type SearchHit, type Session, type Store, type StoredMessage } from '@engram/core'
import { z } from 'zod'
import { defineTool } from './run-tool.ts'
import type { AgentTool, ToolContext } from './tool.ts'

/** The part of the store the tool reads. */
export type SessionSearchStore = Pick<
  Store,
  'search' | 'listSessions' | 'getSession' | 'getStoredMessages' | 'getLineage' | 'getEpisodes' | 'readAround'
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
/** The most sessions one prefix is matched against (the store's largest page). */
const PREFIX_MATCHES = 1000
/** From the widest window to the narrowest: messages on each side of a hit, tokens per message. */
const WINDOWS = [
  { radius: 2, clip: 150 },
  { radius: 1, clip: 100 },
  { radius: 1, clip: 50 },
  { radius: 0, clip: 80 },
  { radius: 0, clip: 40 },
]

const WIDEST = Math.max(...WINDOWS.map((w) => w.radius))

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

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
const flat = (text: string) => text.replace(/\s+/g, ' ').trim()

function describeSession(session: Session): string {
  const title = session.title ? ` · ${JSON.stringify(session.title)}` : ''
  return `${session.id} · ${when(session.startedAt)} · ${session.source}${title} · ${session.messageCount} messages`
}

function messageText(message: StoredMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => `[called ${call.function.name}]`)
  return flat([textOf(message), ...calls].filter(Boolean).join(' ')) || '(empty)'
}

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

  ownedByUser(session: Pick<Session, 'userId'>): boolean {
    return this.context.userId === undefined || session.userId === this.context.userId
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

/** Reads each session and its messages at most once per call. */
class SessionCache {
  private readonly sessions = new Map<string, Promise<Session | null>>()
  private readonly messages = new Map<string, Promise<StoredMessage[]>>()

  constructor(private readonly store: SessionSearchStore) {}

  session(id: string): Promise<Session | null> {
    return memo(this.sessions, id, () => this.store.getSession(id))
  }

  messagesOf(id: string): Promise<StoredMessage[]> {
    return memo(this.messages, id, () => this.store.getStoredMessages(id))
  }
}

interface PreparedHit {
  header: string
  /** Rendered lines of the hit at a window size. */
  body(radius: number, clip: number): string[]
}

class SessionSearch {
  private readonly cache: SessionCache
  private readonly visibility: Visibility
  private readonly counter: TokenCounter
  private readonly maxTokens: number
  private readonly sessionMaxTokens: number
  private readonly sessionId: string | undefined

  constructor(
    private readonly store: SessionSearchStore,
    context: ToolContext,
    options: SessionSearchOptions,
  ) {
    this.cache = new SessionCache(store)
    this.visibility = new Visibility(store, context)
    this.sessionId = context.sessionId
    this.counter = options.tokenCounter ?? bpeTokenCounter
    this.maxTokens = options.maxTokens ?? 1_000
    this.sessionMaxTokens = options.sessionMaxTokens ?? 2_000
  }

  private clip(text: string, tokens: number): string {
    return clipToTokens(this.counter, text, tokens)
  }

  async query(query: string, limit: number, userId: string | undefined): Promise<string> {
    const hits = await this.visibleHits(query, limit, userId)
    if (hits.length === 0) {
      return `No past session matches ${quoted(query)}. Try other or fewer words, or call session_search without a query to list recent sessions.`
    }
    const prepared = await Promise.all(hits.map((hit, i) => this.prepare(hit, i + 1)))
    const render = (shown: PreparedHit[], { radius, clip }: (typeof WINDOWS)[number]) =>
      [
        `${shown.length} result${shown.length === 1 ? '' : 's'} for ${quoted(query)} from past sessions (summaries first; call session_search with a session_id to read one):`,
        ...shown.map((hit) => [hit.header, ...hit.body(radius, clip)].join('\n')),
      ].join('\n\n')
    const fits = (text: string) => this.counter.countText(text) <= this.maxTokens
    for (const window of WINDOWS) {
      const text = render(prepared, window)
      if (fits(text)) return text
    }
    // Even the narrowest windows are too long: drop hits from the least relevant end.
    const narrowest = WINDOWS[WINDOWS.length - 1] as (typeof WINDOWS)[number]
    for (let count = prepared.length - 1; count > 1; count--) {
      const text = render(prepared.slice(0, count), narrowest)
      if (fits(text)) return text
    }
    return this.clip(render(prepared.slice(0, 1), narrowest), this.maxTokens)
  }

  /** Hits outside the current chain (left out by the store) and inside the user's scope, episodes first. */
  private async visibleHits(query: string, limit: number, userId: string | undefined): Promise<SearchHit[]> {
    const hits = await this.store.search(query, {
      limit,
      ...(this.sessionId === undefined ? {} : { excludeLineageOf: this.sessionId }),
      ...(userId === undefined ? {} : { userId }),
    })
    return hits.sort((a, b) => Number(a.kind === 'message') - Number(b.kind === 'message'))
  }

  private async prepare(hit: SearchHit, n: number): Promise<PreparedHit> {
    const session = await this.cache.session(hit.sessionId)
    const title = session?.title ? ` · ${JSON.stringify(session.title)}` : ''
    const where = `session ${hit.sessionId} · ${when(hit.timestamp)} · ${hit.source}${title}`
    if (hit.kind === 'episode') {
      const episodes = await this.store.getEpisodes(hit.sessionId)
      const summary = episodes.find((e) => e.id === hit.episodeId)?.summary ?? hit.snippet
      return {
        header: `[${n}] summary · ${where}`,
        body: (radius, clip) => [this.clip(flat(summary), clip * (radius + 1))],
      }
    }
    // the widest window's messages, read by id: bounded, whatever the session's length
    const messages = await this.store.readAround(hit.messageId, { before: WIDEST, after: WIDEST })
    const at = messages.findIndex((m) => m.id === hit.messageId)
    return {
      header: `[${n}] message · ${where}`,
      body: (radius, clip) => {
        if (at === -1) return [`> ${hit.role}: ${this.clip(flat(hit.snippet), clip)}`]
        return messages
          .slice(Math.max(0, at - radius), at + radius + 1)
          .map((m) =>
            m.id === hit.messageId
              ? `> ${m.role}: ${this.hitText(m, hit, clip)}`
              : `  ${m.role}: ${this.clip(messageText(m), clip)}`,
          )
      },
    }
  }

  /** The hit message whole when it fits, else the search snippet around the match. */
  private hitText(message: StoredMessage, hit: SearchHit, clip: number): string {
    const text = messageText(message)
    return this.counter.countText(text) <= clip ? text : this.clip(flat(hit.snippet), clip)
  }

  async session(idOrPrefix: string, userId: string | undefined): Promise<string> {
    const session = await this.resolve(idOrPrefix.trim(), userId)
    if (await this.visibility.inCurrentChain(session.id)) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `Session ${session.id} is the current conversation (or part of its compression chain); its content is already in your context. Search for other sessions instead.`,
      )
    }
    const messages = await this.cache.messagesOf(session.id)
    const lines = [`Session ${describeSession(session)}:`]
    let used = this.counter.countText(lines[0] as string)
    for (const [i, message] of messages.entries()) {
      const line = `${message.role}: ${this.clip(messageText(message), 300)}`
      const cost = this.counter.countText(line) + 1
      if (used + cost > this.sessionMaxTokens - 30) {
        lines.push(
          `[… ${messages.length - i} more messages not shown (messages ${i + 1}–${messages.length} of ${messages.length}); search with a query to find a specific part …]`,
        )
        break
      }
      lines.push(line)
      used += cost
    }
    if (messages.length === 0) lines.push('(no messages)')
    return lines.join('\n')
  }

  private async resolve(idOrPrefix: string, userId: string | undefined): Promise<Session> {
    const exact = await this.cache.session(idOrPrefix)
    if (exact && this.visibility.ownedByUser(exact)) return exact
    if (idOrPrefix.length < MIN_PREFIX) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `session_id ${quoted(idOrPrefix)} is too short: give the full id or a prefix of at least ${MIN_PREFIX} characters.`,
      )
    }
    const found = await this.store.listSessions({
      idPrefix: idOrPrefix,
      limit: PREFIX_MATCHES,
      ...(userId === undefined ? {} : { userId }),
    })
    if (found.length === 1) return found[0] as Session
    if (found.length === 0) {
      throw new EngramError(
        'SESSION_NOT_FOUND',
        `No session with id or prefix ${quoted(idOrPrefix)}. Call session_search without arguments to list recent sessions and copy an id.`,
      )
    }
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${quoted(idOrPrefix)} is the prefix of ${found.length} sessions; give more characters:\n${found
        .slice(0, 10)
        .map((s) => `  - ${describeSession(s)}`)
        .join('\n')}`,
    )
  }

  async recent(userId: string | undefined): Promise<string> {
    const sessions = await this.store.listSessions({
      limit: RECENT_SESSIONS * 3,
      ...(userId === undefined ? {} : { userId }),
    })
    const shown: Session[] = []
    for (const session of sessions) {
      if (shown.length < RECENT_SESSIONS && !(await this.visibility.inCurrentChain(session.id)))
        shown.push(session)
    }
    if (shown.length === 0) return 'No past sessions yet (the current conversation is not listed).'
    return [
      'Recent sessions, newest first (call session_search with a session_id to read one, or a query to search all):',
      ...shown.map((s) => `- ${describeSession(s)}`),
    ].join('\n')
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
): AgentTool {
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
      if (sessionId) return search.session(sessionId, context.userId)
      if (query) return search.query(query, args.limit ?? DEFAULT_LIMIT, context.userId)
      return search.recent(context.userId)
    },
  })
}

/** A message line of a query result: `> role: text` for the hit, `  role: text` for those around it. */
const MESSAGE_LINE = /^(>| ) (system|user|assistant|tool): (.*)$/

/**
 * The messages quoted in a `session_search` query result, for a model that reads its tool results back
 * (the offline one). Linear in the text.
 */
export function searchResultMessages(result: string): { role: string; text: string; hit: boolean }[] {
  const messages: { role: string; text: string; hit: boolean }[] = []
  for (const line of result.split('\n')) {
    const match = MESSAGE_LINE.exec(line)
    if (match) messages.push({ role: match[2] as string, text: match[3] as string, hit: match[1] === '>' })
  }
  return messages
}
