import type { ToolCall } from '@engram/core'
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'
import { callVendor } from './call.ts'
import { type ProviderOptions, resolveEndpoint, sdkClientOptions } from './endpoint.ts'
import { badResponse, type Endpoint } from './errors.ts'
import { once } from './http.ts'
import type { ChatRequest, ChatResult, ChatUsage, ModelProvider } from './types.ts'

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1'

function usageOf(usage: ChatCompletion['usage'] | null | undefined): ChatUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    ...(cached ? { cacheReadTokens: cached } : {}),
  }
}

function assistantMessage(text: string, toolCalls: ToolCall[]): ChatResult['message'] {
  if (toolCalls.length === 0) return { role: 'assistant', content: text }
  return { role: 'assistant', content: text || null, tool_calls: toolCalls }
}

function requestBody(request: ChatRequest, model: string): ChatCompletionCreateParamsBase {
  const body: ChatCompletionCreateParamsBase = {
    model,
    messages: [
      { role: 'system', content: request.system },
      ...(request.messages as unknown as ChatCompletionMessageParam[]),
    ],
  }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
    }))
  }
  return body
}

function fromCompletion(data: unknown, endpoint: Endpoint): ChatResult {
  const choice = (data as ChatCompletion | null)?.choices?.[0]
  if (typeof data !== 'object' || data === null || !choice?.message) {
    throw badResponse(endpoint, 'without `choices`', data)
  }
  const toolCalls = (choice.message.tool_calls ?? [])
    .filter((call) => call.type === 'function')
    .map(
      (call): ToolCall => ({
        id: call.id,
        type: 'function',
        function: { name: call.function.name, arguments: call.function.arguments },
      }),
    )
  return {
    message: assistantMessage(choice.message.content ?? '', toolCalls),
    finishReason: choice.finish_reason ?? 'stop',
    usage: usageOf((data as ChatCompletion).usage),
  }
}

async function readStream(
  stream: AsyncIterable<ChatCompletionChunk>,
  onText: (delta: string) => void,
  endpoint: Endpoint,
): Promise<ChatResult> {
  let text = ''
  let finishReason: string | null = null
  let usage: ChatUsage = { inputTokens: 0, outputTokens: 0 }
  let sawChoice = false
  let first: unknown
  const calls: { id: string; name: string; arguments: string }[] = []
  for await (const chunk of stream) {
    first ??= chunk
    if (chunk.usage) usage = usageOf(chunk.usage)
    const choice = chunk.choices?.[0]
    if (!choice) continue
    sawChoice = true
    if (choice.delta?.content) {
      text += choice.delta.content
      onText(choice.delta.content)
    }
    for (const delta of choice.delta?.tool_calls ?? []) {
      calls[delta.index] ??= { id: '', name: '', arguments: '' }
      const call = calls[delta.index] as { id: string; name: string; arguments: string }
      if (delta.id) call.id = delta.id
      if (delta.function?.name) call.name += delta.function.name
      if (delta.function?.arguments) call.arguments += delta.function.arguments
    }
    if (choice.finish_reason) finishReason = choice.finish_reason
  }
  if (!sawChoice) throw badResponse(endpoint, 'its stream carried no `choices`', first ?? '')
  const toolCalls = calls
    .filter((call) => call !== undefined)
    .map(
      (call): ToolCall => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }),
    )
  return { message: assistantMessage(text, toolCalls), finishReason: finishReason ?? 'stop', usage }
}

/**
 * A {@link ModelProvider} for any OpenAI-compatible chat completions API (OpenAI, OpenRouter, Ollama, vLLM,
 * gateways) through the official `openai` SDK. Streams when the request has `onText` (usage comes in the
 * final chunk via `stream_options.include_usage`). The SDK retries 429 (honouring `retry-after`), 5xx,
 * timeouts and connection errors; what still fails becomes a {@link ProviderError}. Throws `NO_API_KEY`
 * at once when there is no key.
 */
export function createOpenAIProvider(options: ProviderOptions): ModelProvider {
  const { endpoint, fetch } = resolveEndpoint(options, {
    provider: 'openai',
    defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    chatPath: '/chat/completions',
  })
  // The SDK loads on the first chat, so creating a provider (and starting the CLI) does not pay for it.
  const sdk = once(async () => (await import('openai')).default)
  const client = once(async () => {
    const OpenAI = await sdk()
    return new OpenAI({ ...sdkClientOptions(endpoint, fetch), organization: null, project: null })
  })
  return {
    name: 'openai',
    model: endpoint.model,
    chat(request) {
      const body = requestBody(request, endpoint.model)
      const options = { signal: request.signal }
      return callVendor<ChatCompletionChunk>(endpoint, request, {
        sdk,
        json: async () => (await client()).chat.completions.create({ ...body, stream: false }, options),
        stream: async () =>
          (await client()).chat.completions
            .create({ ...body, stream: true, stream_options: { include_usage: true } }, options)
            .withResponse(),
        fromJson: (data) => fromCompletion(data, endpoint),
        fromStream: (events, onText) => readStream(events, onText, endpoint),
      })
    },
  }
}
