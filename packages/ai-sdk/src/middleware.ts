import {
  type CompressibleMessage,
  type CompressionReport,
  type ContextCompressor,
  persistCompression,
  textOf,
} from '@engram/compressor'
import type { ChatMessage, MessageInput, Store, StoredMessage, ToolCall } from '@engram/core'
import type { LanguageModelMiddleware } from 'ai'

type Middleware = LanguageModelMiddleware
type CallOptions = Parameters<NonNullable<Middleware['transformParams']>>[0]['params']
type PromptMessage = CallOptions['prompt'][number]
type GenerateResult = Awaited<
  ReturnType<Parameters<NonNullable<Middleware['wrapGenerate']>>[0]['doGenerate']>
>
type Usage = GenerateResult['usage']
type AssistantPart = Exclude<Extract<PromptMessage, { role: 'assistant' }>['content'], string>[number]

/** The content-part type that records a message's position in the app's prompt. */
const POSITION_PART = 'ai_sdk_prompt_position'
/** The content-part type of the first message of a compacted session: the app prompt positions it covers. */
const COMPACTED_PART = 'ai_sdk_compacted'

export type RecordingStore = Pick<
  Store,
  | 'getSession'
  | 'createSession'
  | 'resolveTip'
  | 'appendMessages'
  | 'getStoredMessages'
  | 'recordUsage'
  | 'setSystemPrompt'
  | 'continueSession'
>

/** What a compaction did: the session it ended, the child the calls are recorded in now, the report. */
export interface CompactionEvent {
  sessionId: string
  childSessionId: string
  report: CompressionReport
}

export interface EngramMiddlewareOptions {
  store: RecordingStore
  /** The Engram session the calls are recorded in; created on the first call when it does not exist. */
  sessionId: string
  /** The curated memory files (`MemoryFiles`): snapshotted once, on the first call of a new session. */
  memory?: { snapshot(): Promise<{ text: string }> }
  /** Stored on a session this creates; default `ai-sdk`. */
  source?: string
  userId?: string
  /**
   * Compresses the prompt with Engram's compressor when it fills the window (any summariser model, any
   * provider): the compressed history continues in a child session and replaces, in every later call,
   * the prompt messages it covers. Give it the model's window and, as `fixedTokens`, the tool definitions.
   */
  compressor?: ContextCompressor
  /** Called after each compaction, once the child session is written. */
  onCompaction?: (event: CompactionEvent) => void
}

const partsOf = (message: { content?: unknown }): readonly Record<string, unknown>[] =>
  Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []
const positionOf = (message: { content?: unknown }): number | undefined => {
  const part = partsOf(message).find((p) => p.type === POSITION_PART)
  return typeof part?.position === 'number' ? part.position : undefined
}

const str = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null))

function toolOutputText(output: unknown): string {
  const value = (output as { value?: unknown } | null)?.value
  return typeof value === 'string' ? value : str(value ?? output)
}

/** The Engram messages of one prompt message: a tool message holds one result per call. */
function toEngram(message: PromptMessage, position: number): MessageInput[] {
  const at = { type: POSITION_PART, position }
  const withText = (text: string) => (text ? [{ type: 'text', text }, at] : [at])
  if (message.role === 'system') return []
  if (message.role === 'tool') {
    return message.content.flatMap((part) =>
      part.type === 'tool-result'
        ? [
            {
              role: 'tool' as const,
              tool_call_id: part.toolCallId,
              name: part.toolName,
              content: withText(toolOutputText(part.output)),
            },
          ]
        : [],
    )
  }
  const parts =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
  const calls: ToolCall[] = parts.flatMap((part) =>
    part.type === 'tool-call' && 'toolCallId' in part
      ? [
          {
            id: part.toolCallId,
            type: 'function' as const,
            function: { name: part.toolName, arguments: str(part.input) },
          },
        ]
      : [],
  )
  return [{ role: message.role, content: withText(text), ...(calls.length ? { tool_calls: calls } : {}) }]
}

/** The assistant message a call produced, in the shape the next prompt holds it. */
function answerMessage(content: GenerateResult['content']): PromptMessage {
  return {
    role: 'assistant',
    content: content.flatMap((part): AssistantPart[] => {
      if (part.type === 'text') return [{ type: 'text', text: part.text }]
      if (part.type === 'tool-call') {
        let input: unknown = part.input
        try {
          input = JSON.parse(part.input)
        } catch {}
        return [{ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input }]
      }
      return []
    }),
  }
}

/** A stored (or compressed) chat message as the model's prompt message: text, tool calls, tool results. */
function toPrompt(message: ChatMessage): PromptMessage {
  const text = textOf(message)
  if (message.role === 'tool') {
    return {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: message.tool_call_id ?? '',
          toolName: message.name ?? '',
          output: { type: 'text', value: text },
        },
      ],
    }
  }
  if (message.role !== 'assistant') return { role: 'user', content: [{ type: 'text', text }] }
  const calls = (message.tool_calls ?? []).map((call): AssistantPart => {
    let input: unknown = call.function.arguments
    try {
      input = JSON.parse(call.function.arguments)
    } catch {}
    return { type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input }
  })
  return { role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls] }
}

/** A compacted session: its compressed history, standing for the app's first `covered` prompt messages. */
interface Compacted {
  messages: ChatMessage[]
  covered: number
}

/**
 * The compaction a session's messages start with (the first message of a compacted session names what
 * it covers; the messages recorded after it, at positions from `covered` on, are not part of it).
 */
function compactedOf(stored: readonly StoredMessage[]): Compacted | undefined {
  const marker = stored[0] && partsOf(stored[0]).find((p) => p.type === COMPACTED_PART)
  if (typeof marker?.covered !== 'number') return undefined
  const covered = marker.covered
  const messages = stored.slice(1).filter((m) => (positionOf(m) ?? -1) < covered)
  return { messages, covered }
}

/**
 * A `wrapLanguageModel` middleware that gives a plain `generateText` / `streamText` user what the Engram
 * agent has: the frozen memory block in the system prompt (snapshotted once per session and stored on
 * it, so a resumed session sends the same bytes), every call's new prompt messages, answer and usage
 * recorded in an Engram session as the call finishes (so search sees them), and, with a `compressor`,
 * the prompt compressed into a child session when it fills the window. A message's position in the
 * app's prompt is stored with it: a later call, or another process resuming the session, records only
 * what lies past the last recorded position. One conversation per middleware session: the app sends
 * the same history, grown, on every call (as the AI SDK's chat does).
 */
export function engramMiddleware(options: EngramMiddlewareOptions): LanguageModelMiddleware {
  const { store, sessionId, compressor } = options
  let ready: Promise<string> | undefined
  /** The session written to: `sessionId`, or the last child of its compactions. */
  let tip = sessionId
  let recorded = 0
  let compacted: Compacted | undefined
  // The app's prompt of each call, by the params the model is called with.
  const appPrompts = new WeakMap<object, CallOptions['prompt']>()

  const prepare = () => {
    ready ??= (async () => {
      let session = await store.getSession(sessionId)
      session ??= await store.createSession({
        id: sessionId,
        source: options.source ?? 'ai-sdk',
        ...(options.userId === undefined ? {} : { userId: options.userId }),
      })
      let block = session.systemPrompt ?? ''
      if (session.systemPrompt == null && options.memory) {
        block = (await options.memory.snapshot()).text
        await store.setSystemPrompt(sessionId, block)
      }
      tip = await store.resolveTip(sessionId)
      const stored = await store.getStoredMessages(tip)
      compacted = compactedOf(stored)
      const positions = stored.map((m) => positionOf(m) ?? -1)
      recorded = Math.max(compacted?.covered ?? 0, ...positions.map((p) => p + 1))
      return block
    })()
    return ready
  }

  /** Compresses `history` into a child session when due; returns whether it did. */
  async function compact(system: string, history: ChatMessage[], covered: number): Promise<boolean> {
    if (compressor === undefined) return false
    // The system text counts against the window; it is not part of the stored history.
    const head: ChatMessage = { role: 'system', content: system }
    const result = await compressor.compress([head, ...history] as CompressibleMessage[])
    if (result === null || result.report.status !== 'compressed') return false
    const messages = result.messages[0] === head ? result.messages.slice(1) : result.messages
    const marker: MessageInput = { role: 'system', content: [{ type: COMPACTED_PART, covered }] }
    const { session } = await persistCompression(store, tip, {
      ...result,
      messages: [marker, ...messages] as CompressibleMessage[],
    })
    options.onCompaction?.({ sessionId: tip, childSessionId: session.id, report: result.report })
    tip = session.id
    compacted = { messages, covered }
    recorded = Math.max(recorded, covered)
    return true
  }

  async function record(prompt: CallOptions['prompt'], answer: PromptMessage, usage: Usage, modelId: string) {
    const from = Math.min(recorded, prompt.length)
    const batch = [...prompt.slice(from), answer].flatMap((message, i) => toEngram(message, from + i))
    if (batch.length > 0) await store.appendMessages(tip, batch)
    recorded = prompt.length + 1
    await store.recordUsage(tip, {
      model: modelId,
      purpose: 'main',
      inputTokens: usage.inputTokens.total ?? 0,
      outputTokens: usage.outputTokens.total ?? 0,
      ...(usage.inputTokens.cacheRead === undefined ? {} : { cacheReadTokens: usage.inputTokens.cacheRead }),
      ...(usage.inputTokens.cacheWrite === undefined
        ? {}
        : { cacheWriteTokens: usage.inputTokens.cacheWrite }),
    })
  }

  /** The app's prompt of a call, as the middleware received it. */
  const appPromptOf = (params: CallOptions) => appPrompts.get(params) ?? params.prompt

  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const block = await prepare()
      const app = params.prompt
      const [first, ...rest] = app
      const appSystem = first?.role === 'system' ? first.content : undefined
      const system = [appSystem, block].filter(Boolean).join('\n\n')
      // The prompt's history: the compacted one for the messages it covers, then the app's own.
      const history = (): ChatMessage[] => {
        const from = compacted?.covered ?? 0
        const own = app.slice(from).flatMap((message, i) => toEngram(message, from + i)) as ChatMessage[]
        return [...(compacted?.messages ?? []), ...own]
      }
      if (compressor) await compact(system, history(), app.length)
      const body = compacted
        ? [...compacted.messages.map(toPrompt), ...app.slice(compacted.covered)]
        : appSystem === undefined
          ? app
          : rest
      const prompt: CallOptions['prompt'] = [
        ...(system ? [{ role: 'system' as const, content: system }] : []),
        ...body,
      ]
      const next = { ...params, prompt }
      appPrompts.set(next, app)
      return next
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await doGenerate()
      await record(appPromptOf(params), answerMessage(result.content), result.usage, model.modelId)
      return result
    },
    async wrapStream({ doStream, params, model }) {
      const { stream, ...rest } = await doStream()
      const content: GenerateResult['content'] = []
      let text = ''
      let usage: Usage | undefined
      const observed = stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === 'text-delta') text += part.delta
            else if (part.type === 'tool-call') content.push(part)
            else if (part.type === 'finish') usage = part.usage
            controller.enqueue(part)
          },
          async flush() {
            if (usage === undefined) return
            await record(
              appPromptOf(params),
              answerMessage([{ type: 'text', text }, ...content]),
              usage,
              model.modelId,
            )
          },
        }),
      )
      return { stream: observed, ...rest }
    },
  }
}
