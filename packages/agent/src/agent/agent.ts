import { isDeepStrictEqual } from 'node:util'
import { bpeTokenCounter, type CompressionReport, ContextCompressor, textOf } from '@engram/compressor'
import {
  EngramError,
  type Session,
  type SessionModelConfig,
  type Store,
  type StoredMessage,
} from '@engram/core'
import type { ModelConfig } from '../config/types.ts'
import { type CallObserver, createSummarizer } from '../providers/auxiliary.ts'
import { throwIfCancelled } from '../providers/errors.ts'
import type { ModelProvider, ToolSpec } from '../providers/types.ts'
import { createMemoryTool } from '../tools/memory-tool.ts'
import { createSessionSearchTool } from '../tools/session-search.ts'
import { type AgentTool, specOf, type ToolContext } from '../tools/tool.ts'
import { normaliseAnswer } from './answer.ts'
import { ContextKeeper, type ContextReport } from './context.ts'
import { Conversation } from './conversation.ts'
import type { AgentEventHandler } from './events.ts'
import { callMainModel } from './model-call.ts'
import { type NudgeSchedule, nudgeIfDue } from './nudge-schedule.ts'
import {
  type AgentConfig,
  auxModel,
  type CreateAgentOptions,
  DEFAULT_MAX_STEPS,
  type RunOptions,
  withDefaults,
} from './options.ts'
import { onlyReports } from './retrieval-reply.ts'
import { findResumable, NEW_SESSION_END_REASON } from './sessions.ts'
import { buildSystemPrompt } from './system-prompt.ts'
import { isRetrievalCall, runToolCalls } from './tool-calls.ts'
import { usageRecord } from './usage.ts'

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
  /**
   * Continues a session (`latest`: the newest of this source and user) at the tip of its chain, with its
   * stored prompt; an ended session is reopened (live again until it ends anew).
   */
  resume(sessionId: string | 'latest'): Promise<Session>
  /** Ends the current session (if any) and starts a new one with a fresh memory snapshot. */
  newSession(): Promise<Session>
  /** Compresses now, due or not (the `/compress` command); null when there is no session yet. */
  compressNow(): Promise<CompressionReport | null>
}

/** Wires the parts together and holds what outlives a session: the tools, the compressor, the task count. */
class EngramAgent implements Agent {
  readonly #options: CreateAgentOptions
  readonly #config: AgentConfig
  readonly #store: Store
  readonly #tools: AgentTool[]
  /** What a request carries of the tools (name, description, parameters): exactly what is counted. */
  readonly #specs: ToolSpec[]
  readonly #compressor: ContextCompressor
  readonly #context: ContextKeeper
  readonly #nudge: NudgeSchedule
  #conversation: Conversation | null = null
  #tasks = 0
  #lastContext: ContextReport | null = null
  #running = false

  constructor(options: CreateAgentOptions) {
    this.#options = options
    this.#config = withDefaults(options)
    this.#store = options.store
    const aux = auxModel(options, this.#config)
    const memoryTool = createMemoryTool(
      options.memory,
      options.secondOpinion
        ? { provider: aux.provider, observe: this.#observer('scan', aux.provider, aux.model) }
        : undefined,
    )
    this.#tools = [memoryTool, createSessionSearchTool(options.store), ...(options.tools ?? [])]
    this.#specs = this.#tools.map(specOf)
    const counter = options.tokenCounter ?? bpeTokenCounter
    // The tool specs go with every request: counted once, against the window, by the compressor too.
    const toolTokens = counter.countText(JSON.stringify(this.#specs))
    this.#compressor = new ContextCompressor({
      window: this.#config.models.main.contextWindow,
      config: this.#config.compressor,
      tokenCounter: counter,
      fixedTokens: toolTokens,
      summarizer: createSummarizer(aux.provider, this.#observer('compression', aux.provider, aux.model)),
    })
    this.#context = new ContextKeeper({
      store: options.store,
      compressor: this.#compressor,
      counter,
      window: this.#config.models.main.contextWindow,
      toolTokens,
      emit: this.#emit,
    })
    this.#nudge = {
      intervalTasks: this.#config.nudge.intervalTasks,
      aux,
      memory: options.memory,
      memoryTool,
      observe: this.#observer('nudge', aux.provider, aux.model),
      emit: this.#emit,
    }
  }

  get sessionId() {
    return this.#conversation?.session.id ?? null
  }

  get systemPrompt() {
    return this.#conversation?.systemPrompt ?? null
  }

  get tasksCompleted() {
    return this.#tasks
  }

  get lastContext() {
    return this.#lastContext
  }

  #observer(purpose: string, provider: ModelProvider, model: ModelConfig): CallObserver {
    return async (result, latencyMs) => {
      const session = this.#conversation?.session
      if (!session) return
      const record = usageRecord(provider.model, purpose, result, latencyMs, model.price)
      await this.#store.recordUsage(session.id, record)
      this.#emit({ type: 'usage', sessionId: session.id, record })
    }
  }

  readonly #emit: AgentEventHandler = (event) => this.#options.onEvent?.(event)

  #start(session: Session, systemPrompt: string, history: StoredMessage[]): Conversation {
    this.#conversation = new Conversation(this.#store, session, systemPrompt, history)
    this.#compressor.guard.reset()
    return this.#conversation
  }

  /** A system prompt over a new snapshot of the memory files (read now, frozen for the session). */
  async #freshSystemPrompt(): Promise<string> {
    const snapshot = await this.#options.memory.snapshot()
    const now = this.#options.now?.() ?? new Date()
    return buildSystemPrompt({ snapshotText: snapshot.text, tools: this.#tools, now })
  }

  newSession(): Promise<Session> {
    return this.#newConversation().then((conversation) => conversation.session)
  }

  async #newConversation(): Promise<Conversation> {
    if (this.#conversation)
      await this.#store.endSession(this.#conversation.session.id, NEW_SESSION_END_REASON)
    const systemPrompt = await this.#freshSystemPrompt()
    const session = await this.#store.createSession({
      source: this.#options.source,
      model: this.#options.provider.model,
      userId: this.#options.userId ?? null,
      systemPrompt,
      modelConfig: this.#modelSettings(null),
    })
    return this.#start(session, systemPrompt, [])
  }

  /**
   * The settings this agent runs a session with (window, reply budget, model, provider), over what the
   * session recorded before (another tool's keys stay), so the session says what its context is measured against.
   */
  #modelSettings(recorded: SessionModelConfig | null): SessionModelConfig {
    const { provider } = this.#options
    const { contextWindow, maxTokens } = this.#config.models.main
    return { ...recorded, contextWindow, maxTokens, model: provider.model, provider: provider.name }
  }

  async resume(sessionId: string | 'latest'): Promise<Session> {
    const { source, userId } = this.#options
    const session = await findResumable(this.#store, sessionId, {
      source,
      ...(userId === undefined ? {} : { userId }),
    })
    let systemPrompt = session.systemPrompt
    if (systemPrompt === null) {
      // A session written by another tool has no stored prompt: build one now and keep it from here on.
      systemPrompt = await this.#freshSystemPrompt()
      await this.#store.setSystemPrompt(session.id, systemPrompt)
    }
    // An ended session written to again is live: left ended, its old end would make it prunable.
    if (session.endedAt !== null) await this.#store.reopenSession(session.id)
    // From here on it runs with this agent's window: the record says so (a session of another tool gets one).
    const modelConfig = this.#modelSettings(session.modelConfig)
    if (!isDeepStrictEqual(modelConfig, session.modelConfig))
      await this.#store.setModelConfig(session.id, modelConfig)
    const resumed = { ...session, modelConfig, endedAt: null, endReason: null }
    this.#start(resumed, systemPrompt, await this.#store.getStoredMessages(session.id))
    return resumed
  }

  async #checkContext(
    conversation: Conversation,
    force: boolean,
    signal?: AbortSignal,
  ): Promise<CompressionReport | null> {
    const { context, report } = await this.#context.check(conversation, force, signal)
    this.#lastContext = context
    return report
  }

  async compressNow(): Promise<CompressionReport | null> {
    if (!this.#conversation) return null
    return this.#checkContext(this.#conversation, true)
  }

  #toolContext(conversation: Conversation, signal: AbortSignal | undefined): ToolContext {
    return {
      sessionId: conversation.session.id,
      ...(this.#options.userId === undefined ? {} : { userId: this.#options.userId }),
      ...(signal ? { signal } : {}),
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
    const conversation = this.#conversation ?? (await this.#newConversation())
    await conversation.append({ role: 'user', content: userText })
    const { provider } = this.#options
    const main = this.#config.models.main
    const maxSteps = this.#options.maxSteps ?? DEFAULT_MAX_STEPS
    const call = {
      provider,
      tools: this.#specs,
      maxTokens: main.maxTokens,
      observe: this.#observer('main', provider, main),
    }
    let answer: string | null = null
    // what this turn's retrieval calls sent and returned; null once the turn calls any other tool
    let retrieved: string[] | null = []
    for (let step = 0; step < maxSteps && answer === null; step++) {
      throwIfCancelled(options.signal)
      await this.#checkContext(conversation, false, options.signal)
      throwIfCancelled(options.signal)
      // The reply gets what the window leaves (the compressor fitted the prompt to leave its reply budget).
      const room = main.contextWindow - this.#context.tokens(conversation)
      const result = await callMainModel(
        conversation,
        { ...call, maxTokens: Math.max(1, Math.min(main.maxTokens, room)) },
        options,
      )
      const message = normaliseAnswer(result.message, conversation.history)
      const calls = message.tool_calls ?? []
      if (calls.length === 0) {
        answer = textOf(message)
        // a reply that only reports the turn's retrieval is its echo (see retrieval-reply.ts)
        const reports =
          retrieved !== null && retrieved.length > 0 && onlyReports(answer, [userText, ...retrieved])
        await conversation.append(message, reports)
        break
      }
      const retrieval = calls.every((c) => isRetrievalCall(this.#tools, c))
      await conversation.append(message, retrieval)
      const before = conversation.history.length
      await runToolCalls(conversation, this.#tools, calls, this.#toolContext(conversation, options.signal), {
        beforeEach: () => throwIfCancelled(options.signal),
        emit: this.#emit,
      })
      retrieved =
        retrieval && retrieved !== null
          ? [
              ...retrieved,
              ...calls.map((c) => c.function.arguments),
              ...conversation.history.slice(before).map(textOf),
            ]
          : null
    }
    if (answer === null) {
      answer = `Stopped after ${maxSteps} model calls without a final answer (the step limit). Ask again to continue.`
      await conversation.append({ role: 'assistant', content: answer })
    }
    this.#tasks++
    await nudgeIfDue(this.#nudge, this.#tasks, conversation, this.#toolContext(conversation, options.signal))
    return answer
  }
}

/** Creates an {@link Agent}; nothing is read or written until `run`, `resume` or `newSession`. */
export function createAgent(options: CreateAgentOptions): Agent {
  return new EngramAgent(options)
}
