import type { MessageInput, Store, ToolCall } from '@engram/core'
import type { LanguageModelMiddleware } from 'ai'

type Middleware = LanguageModelMiddleware
type CallOptions = Parameters<NonNullable<Middleware['transformParams']>>[0]['params']
type PromptMessage = CallOptions['prompt'][number]
type GenerateResult = Awaited<
  ReturnType<Parameters<NonNullable<Middleware['wrapGenerate']>>[0]['doGenerate']>
>
type Usage = GenerateResult['usage']
type AssistantPart = Exclude<Extract<PromptMessage, { role: 'assistant' }>['content'], string>[number]

/** The content-part type that records a message's position in the model's prompt. */
const POSITION_PART = 'ai_sdk_prompt_position'

export type RecordingStore = Pick<
  Store,
  'getSession' | 'createSession' | 'appendMessages' | 'getStoredMessages' | 'recordUsage' | 'setSystemPrompt'
>

export interface EngramMiddlewareOptions {
  store: RecordingStore
  /** The Engram session the calls are recorded in; created on the first call when it does not exist. */
  sessionId: string
  /** The curated memory files (`MemoryFiles`): snapshotted once, on the first call of a new session. */
  memory?: { snapshot(): Promise<{ text: string }> }
  /** Stored on a session this creates; default `ai-sdk`. */
  source?: string
  userId?: string
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

/**
 * A `wrapLanguageModel` middleware that gives a plain `generateText` / `streamText` user what the Engram
 * agent has: the frozen memory block in the system prompt (snapshotted once per session and stored on
 * it, so a resumed session sends the same bytes) and every call's new prompt messages, answer and usage
 * recorded in an Engram session as the call finishes (so search and compression see them). A message's
 * position in the prompt is stored with it: a later call, or another process resuming the session,
 * records only what lies past the last recorded position.
 */
export function engramMiddleware(options: EngramMiddlewareOptions): LanguageModelMiddleware {
  const { store, sessionId } = options
  let ready: Promise<{ block: string; recorded: number }> | undefined
  let recorded = 0

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
      let last = -1
      for (const message of await store.getStoredMessages(sessionId)) {
        if (!Array.isArray(message.content)) continue
        for (const part of message.content as unknown as readonly Record<string, unknown>[]) {
          if (part.type === POSITION_PART && typeof part.position === 'number')
            last = Math.max(last, part.position)
        }
      }
      return { block, recorded: last + 1 }
    })()
    return ready
  }

  async function record(prompt: CallOptions['prompt'], answer: PromptMessage, usage: Usage, modelId: string) {
    const from = Math.min(recorded, prompt.length)
    const batch = [...prompt.slice(from), answer].flatMap((message, i) => toEngram(message, from + i))
    if (batch.length > 0) await store.appendMessages(sessionId, batch)
    recorded = prompt.length + 1
    await store.recordUsage(sessionId, {
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

  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const { block, recorded: stored } = await prepare()
      recorded = Math.max(recorded, stored)
      if (!block) return params
      const [first, ...rest] = params.prompt
      const prompt: CallOptions['prompt'] =
        first?.role === 'system'
          ? [{ ...first, content: `${first.content}\n\n${block}` }, ...rest]
          : [{ role: 'system', content: block }, ...params.prompt]
      return { ...params, prompt }
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await doGenerate()
      await record(params.prompt, answerMessage(result.content), result.usage, model.modelId)
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
              params.prompt,
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
