import {
  bpeTokenCounter,
  type CompressionReport,
  ContextCompressor,
  countMessages,
  DEFAULT_COMPRESSOR_CONFIG,
  persistCompression,
  repairToolPairs,
  shouldCompress,
  type TokenCounter,
} from '@engram/compressor'
import { type ChatMessage, EngramError, type Session, type Store, type StoredMessage } from '@engram/core'
import {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_TOKENS,
  DEFAULT_NUDGE_INTERVAL_TASKS,
} from '../config/defaults.ts'
import type { EngramConfig, ModelConfig } from '../config/types.ts'
import type { MemoryFiles } from '../memory/memory-files.ts'
import { type CallObserver, createSummarizer, timedChat } from '../providers/auxiliary.ts'
import { ProviderError, throwIfCancelled } from '../providers/errors.ts'
import type { ChatResult, ModelProvider } from '../providers/types.ts'
import { createMemoryTool } from '../tools/memory-tool.ts'
import { runTool } from '../tools/run-tool.ts'
import { createSessionSearchTool } from '../tools/session-search.ts'
import type { AgentTool, ToolContext } from '../tools/tool.ts'
import { importanceOf } from './importance.ts'
import { runNudge } from './nudge.ts'
import { buildSystemPrompt } from './system-prompt.ts'
import { usageRecord } from './usage.ts'

/** Model calls one `run` may make before it stops without a final answer. */
export const DEFAULT_MAX_STEPS = 12
/** The end reason of a session left for a new one (`newSession`). */
export const NEW_SESSION_END_REASON = 'new_session'

/** The parts of {@link EngramConfig} the loop reads. */
export type AgentConfig = Pick<EngramConfig, 'compressor' | 'nudge' | 'models'>

function withDefaults(options: CreateAgentOptions): AgentConfig {
  const model = (provider: ModelProvider, maxTokens: number): ModelConfig => ({
    modelId: provider.model,
    maxTokens,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
  })
  const config = options.config ?? {}
  return {
    compressor: config.compressor ?? { ...DEFAULT_COMPRESSOR_CONFIG },
    nudge: config.nudge ?? { intervalTasks: DEFAULT_NUDGE_INTERVAL_TASKS },
    models: config.models ?? {
      main: model(options.provider, DEFAULT_MAX_TOKENS),
      compressor: model(options.auxProvider ?? options.provider, DEFAULT_COMPRESSOR_CONFIG.summaryMaxTokens),
    },
  }
}

export interface CreateAgentOptions {
  store: Store
  provider: ModelProvider
  /** The cheap model for summaries and the nudge; defaults to `provider`. */
  auxProvider?: ModelProvider
  memory: MemoryFiles
  /**
   * The compressor, nudge and model settings of the loaded configuration. Parts left out take the articles'
   * defaults: the default compressor settings, a nudge every 15 tasks, and for each model its provider's id,
   * 4,096 answer tokens (1,500 for the auxiliary one) and a 128,000-token window.
   */
  config?: Partial<AgentConfig>
  /** Extra tools, offered after `memory` and `session_search`. */
  tools?: AgentTool[]
  /** `cli`, `telegram`, …: stored on sessions, and what `resume('latest')` looks for. */
  source: string
  /** Scopes sessions and searches to one user. */
  userId?: string
  /** Receives the `[ctx] …` and `[nudge] …` lines; default stderr. Never given secrets. */
  logger?: (line: string) => void
  maxSteps?: number
  /** Clock for the date in the system prompt. */
  now?: () => Date
  /** Counts tokens when the provider has not reported any; default the BPE counter. */
  tokenCounter?: TokenCounter
}

export interface RunOptions {
  /** Streams the answer's text as it arrives. */
  onText?: (delta: string) => void
  /** Aborts the run: the model call and the tools stop, everything already persisted stays. */
  signal?: AbortSignal
}

/** The context check before the latest model call. */
export interface ContextReport {
  tokens: number
  window: number
  ratio: number
  compressed: boolean
}

/**
 * An agent over one conversation at a time: it persists every message the moment it exists, runs the
 * tools the model asks for, compresses the context into a child session when due, records the usage of
 * every model call and runs the memory nudge every `nudge.intervalTasks` answered turns.
 */
export interface Agent {
  /** The current session (the tip of its compression chain), or null before the first run. */
  readonly sessionId: string | null
  readonly systemPrompt: string | null
  /** User turns answered since this agent started or resumed. */
  readonly tasksCompleted: number
  readonly lastContext: ContextReport | null
  /**
   * Answers one user message: persists it, calls the model and the tools until a final answer or the step
   * limit, and returns the answer. Starts a session when there is none. Throws the provider's
   * {@link ProviderError} (after its retries; code `ABORTED` when `signal` fired, wherever the run was);
   * what was persisted stays. One run at a time per agent.
   */
  run(userText: string, options?: RunOptions): Promise<string>
  /** Continues a session (`latest`: the newest of this source and user) at the tip of its chain, with its stored prompt. */
  resume(sessionId: string | 'latest'): Promise<Session>
  /** Ends the current session (if any) and starts a new one with a fresh memory snapshot. */
  newSession(): Promise<Session>
  /** Compresses now, due or not (the `/compress` command); null when there is no session yet. */
  compressNow(): Promise<CompressionReport | null>
}

/** Only the wire keys: stored rows also carry id, session, time and token count, which the APIs refuse. */
function wire(message: ChatMessage): ChatMessage {
  const { role, content, tool_calls, tool_call_id, name } = message
  return {
    role,
    content,
    ...(tool_calls?.length ? { tool_calls } : {}),
    ...(tool_call_id === undefined ? {} : { tool_call_id }),
    ...(name === undefined ? {} : { name }),
  } as ChatMessage
}

const stderrLogger = (line: string) => process.stderr.write(`${line}\n`)

class EngramAgent implements Agent {
  readonly #options: CreateAgentOptions
  readonly #config: AgentConfig
  readonly #store: Store
  readonly #tools: AgentTool[]
  readonly #memoryTool: AgentTool
  readonly #compressor: ContextCompressor
  readonly #counter: TokenCounter
  readonly #log: (line: string) => void
  #session: Session | null = null
  #systemPrompt: string | null = null
  #history: StoredMessage[] = []
  /** Provider-reported prompt tokens of the request that held the first `messages` history entries. */
  #measured: { tokens: number; messages: number } | null = null
  #tasks = 0
  #sinceNudge = 0
  #lastContext: ContextReport | null = null
  #running = false

  constructor(options: CreateAgentOptions) {
    this.#options = options
    this.#config = withDefaults(options)
    this.#store = options.store
    this.#memoryTool = createMemoryTool(options.memory)
    this.#tools = [this.#memoryTool, createSessionSearchTool(options.store), ...(options.tools ?? [])]
    this.#counter = options.tokenCounter ?? bpeTokenCounter
    this.#log = options.logger ?? stderrLogger
    const aux = this.#aux
    this.#compressor = new ContextCompressor({
      window: this.#config.models.main.contextWindow,
      config: this.#config.compressor,
      tokenCounter: this.#counter,
      summarizer: createSummarizer(aux.provider, this.#observer('compression', aux.provider, aux.model)),
    })
  }

  get #aux(): { provider: ModelProvider; model: ModelConfig } {
    const { auxProvider, provider } = this.#options
    const config = this.#config
    return auxProvider
      ? { provider: auxProvider, model: config.models.compressor }
      : { provider, model: config.models.main }
  }

  get sessionId() {
    return this.#session?.id ?? null
  }

  get systemPrompt() {
    return this.#systemPrompt
  }

  get tasksCompleted() {
    return this.#tasks
  }

  get lastContext() {
    return this.#lastContext
  }

  #observer(purpose: string, provider: ModelProvider, model: ModelConfig): CallObserver {
    return async (result, latencyMs) => {
      if (!this.#session) return
      await this.#store.recordUsage(
        this.#session.id,
        usageRecord(provider.model, purpose, result, latencyMs, model.price),
      )
    }
  }

  #reset(session: Session, systemPrompt: string, history: StoredMessage[]) {
    this.#session = session
    this.#systemPrompt = systemPrompt
    this.#history = history
    this.#measured = null
    this.#sinceNudge = 0
    this.#compressor.guard.reset()
  }

  /** A system prompt over a new snapshot of the memory files (read now, frozen for the session). */
  async #freshSystemPrompt(): Promise<string> {
    const snapshot = await this.#options.memory.snapshot()
    const now = this.#options.now?.() ?? new Date()
    return buildSystemPrompt({ snapshotText: snapshot.text, tools: this.#tools, now })
  }

  async newSession(): Promise<Session> {
    if (this.#session) await this.#store.endSession(this.#session.id, NEW_SESSION_END_REASON)
    const systemPrompt = await this.#freshSystemPrompt()
    const session = await this.#store.createSession({
      source: this.#options.source,
      model: this.#options.provider.model,
      userId: this.#options.userId ?? null,
      systemPrompt,
    })
    this.#reset(session, systemPrompt, [])
    return session
  }

  async resume(sessionId: string | 'latest'): Promise<Session> {
    let id = sessionId
    if (sessionId === 'latest') {
      const { source, userId } = this.#options
      const [latest] = await this.#store.listSessions({
        source,
        limit: 1,
        ...(userId === undefined ? {} : { userId }),
      })
      if (!latest) {
        throw new EngramError(
          'SESSION_NOT_FOUND',
          `No session of source ${JSON.stringify(source)} to resume${userId === undefined ? '' : ` for user ${JSON.stringify(userId)}`}. Start one with run().`,
        )
      }
      id = latest.id
    }
    const tip = await this.#store.resolveTip(id)
    const session = (await this.#store.getSession(tip)) as Session
    if (this.#options.userId !== undefined && session.userId !== this.#options.userId) {
      throw new EngramError(
        'SESSION_NOT_FOUND',
        `Session ${JSON.stringify(id)} does not belong to this user.`,
      )
    }
    let systemPrompt = session.systemPrompt
    if (systemPrompt === null) {
      // A session written by another tool has no stored prompt: build one now and keep it from here on.
      systemPrompt = await this.#freshSystemPrompt()
      await this.#store.setSystemPrompt(session.id, systemPrompt)
    }
    this.#reset(session, systemPrompt, await this.#store.getStoredMessages(session.id))
    return session
  }

  async #append(message: ChatMessage): Promise<StoredMessage> {
    const stored = await this.#store.appendMessage((this.#session as Session).id, wire(message))
    this.#history.push(stored)
    this.#sinceNudge++
    return stored
  }

  /** The history as the provider gets it: wire shape, tool pairs repaired (a crash can leave a call unanswered). */
  #sendable(): ChatMessage[] {
    return repairToolPairs(this.#history.map(wire)).messages
  }

  #contextTokens(): number {
    if (this.#measured && this.#measured.messages <= this.#history.length) {
      const added = this.#history.slice(this.#measured.messages)
      return this.#measured.tokens + added.reduce((sum, m) => sum + this.#counter.countMessage(m), 0)
    }
    const system: ChatMessage = { role: 'system', content: this.#systemPrompt ?? '' }
    const tools = this.#counter.countText(JSON.stringify(this.#tools.map(({ execute: _, ...spec }) => spec)))
    return countMessages(this.#counter, [system, ...this.#sendable()]) + tools
  }

  async #checkContext(force: boolean): Promise<CompressionReport | null> {
    const session = this.#session as Session
    const window = this.#config.models.main.contextWindow
    const tokens = this.#contextTokens()
    const line = (compressed: boolean, note = '') => {
      this.#lastContext = { tokens, window, ratio: tokens / window, compressed }
      this.#log(
        `[ctx] tokens=${tokens} window=${window} ratio=${(tokens / window).toFixed(2)} compressed=${compressed ? 'yes' : 'no'}${note}`,
      )
    }
    if (!force && !shouldCompress(tokens, window, this.#compressor.config)) {
      this.#lastContext = { tokens, window, ratio: tokens / window, compressed: false }
      return null
    }
    const system: ChatMessage = { role: 'system', content: this.#systemPrompt ?? '' }
    const result = await this.#compressor.compress([system, ...this.#history], {
      force,
      measuredTokens: tokens,
    })
    if (!result) {
      line(false, ' (blocked: the last compressions did not help)')
      return null
    }
    if (result.report.status !== 'compressed') {
      line(false, ` (${result.report.status}${result.report.reason ? `: ${result.report.reason}` : ''})`)
      return result.report
    }
    const messages = result.messages[0] === system ? result.messages.slice(1) : result.messages
    const importance = result.summary === null ? undefined : importanceOf(result.summary)
    const { session: child } = await persistCompression(
      this.#store,
      session.id,
      { ...result, messages },
      importance === undefined ? {} : { importance },
    )
    this.#session = child
    this.#history = await this.#store.getStoredMessages(child.id)
    this.#measured = null
    this.#sinceNudge = Math.min(this.#sinceNudge, this.#history.length)
    line(true, ` tokens_after=${result.report.tokensAfter} session=${child.id}`)
    const after = result.report.tokensAfter
    this.#lastContext = { tokens: after, window, ratio: after / window, compressed: true }
    return result.report
  }

  async compressNow(): Promise<CompressionReport | null> {
    if (!this.#session) return null
    return this.#checkContext(true)
  }

  async #callTool(name: string, args: string, context: ToolContext): Promise<string> {
    const tool = this.#tools.find((t) => t.name === name)
    if (!tool) {
      return JSON.stringify({
        error: `There is no tool named ${JSON.stringify(name)}. Available: ${this.#tools.map((t) => t.name).join(', ')}.`,
      })
    }
    return runTool(tool, args, context)
  }

  async #callModel(options: RunOptions): Promise<ChatResult> {
    const { provider } = this.#options
    const config = this.#config
    const partial: string[] = []
    const onText = options.onText
    try {
      const result = await timedChat(
        provider,
        {
          system: this.#systemPrompt ?? '',
          messages: this.#sendable(),
          tools: this.#tools,
          maxTokens: config.models.main.maxTokens,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(onText
            ? {
                onText: (delta: string) => {
                  partial.push(delta)
                  onText(delta)
                },
              }
            : {}),
        },
        this.#observer('main', provider, config.models.main),
      )
      this.#measured =
        result.usage.inputTokens > 0
          ? { tokens: result.usage.inputTokens, messages: this.#history.length }
          : null
      return result
    } catch (error) {
      // Text the user already saw is part of the conversation, however the answer broke off (an abort,
      // a stall, a dropped connection): keep it, marked as cut off.
      if (partial.length > 0)
        await this.#append({ role: 'assistant', content: `${partial.join('')} [interrupted]` })
      throw error
    }
  }

  async run(userText: string, options: RunOptions = {}): Promise<string> {
    if (this.#running) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        'This agent is already answering: await run() before the next one (one run at a time per agent; use another agent for parallel conversations).',
      )
    }
    this.#running = true
    try {
      return await this.#run(userText, options)
    } finally {
      this.#running = false
    }
  }

  async #run(userText: string, options: RunOptions): Promise<string> {
    if (!this.#session) await this.newSession()
    await this.#append({ role: 'user', content: userText })
    const maxSteps = this.#options.maxSteps ?? DEFAULT_MAX_STEPS
    let answer: string | null = null
    for (let step = 0; step < maxSteps && answer === null; step++) {
      throwIfCancelled(options.signal)
      await this.#checkContext(false)
      const result = await this.#callModel(options)
      await this.#append(result.message)
      const calls = result.message.tool_calls ?? []
      if (calls.length === 0) {
        answer = typeof result.message.content === 'string' ? result.message.content : ''
        break
      }
      const context: ToolContext = {
        sessionId: (this.#session as Session).id,
        ...(this.#options.userId === undefined ? {} : { userId: this.#options.userId }),
        ...(options.signal ? { signal: options.signal } : {}),
      }
      for (const call of calls) {
        throwIfCancelled(options.signal)
        const output = await this.#callTool(call.function.name, call.function.arguments, context)
        await this.#append({ role: 'tool', tool_call_id: call.id, content: output })
      }
    }
    if (answer === null) {
      answer = `Stopped after ${maxSteps} model calls without a final answer (the step limit). Ask again to continue.`
      await this.#append({ role: 'assistant', content: answer })
    }
    this.#tasks++
    await this.#maybeNudge(options.signal)
    return answer
  }

  async #maybeNudge(signal: AbortSignal | undefined): Promise<void> {
    const interval = this.#config.nudge.intervalTasks
    if (interval <= 0 || this.#tasks % interval !== 0) return
    const aux = this.#aux
    const recent = this.#sinceNudge > 0 ? this.#history.slice(-this.#sinceNudge).map(wire) : []
    this.#sinceNudge = 0
    try {
      const outcome = await runNudge({
        provider: aux.provider,
        memory: this.#options.memory,
        memoryTool: this.#memoryTool,
        messages: recent,
        context: {
          sessionId: (this.#session as Session).id,
          ...(this.#options.userId === undefined ? {} : { userId: this.#options.userId }),
          ...(signal ? { signal } : {}),
        },
        maxTokens: aux.model.maxTokens,
        observe: this.#observer('nudge', aux.provider, aux.model),
      })
      this.#log(
        `[nudge] reviewed ${recent.length} messages, ${outcome.writes} memory write(s)${outcome.consolidate ? ', consolidation asked' : ''}`,
      )
    } catch (error) {
      this.#log(`[nudge] skipped: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

/** Creates an {@link Agent}; nothing is read or written until `run`, `resume` or `newSession`. */
export function createAgent(options: CreateAgentOptions): Agent {
  return new EngramAgent(options)
}
