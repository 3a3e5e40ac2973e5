import type {
  ContentBlock,
  Message,
  MessageCreateParamsBase,
  RawMessageStreamEvent,
  Usage,
} from '@anthropic-ai/sdk/resources/messages/messages'
import { DEFAULT_MAX_TOKENS } from '../config/defaults.ts'
import {
  finishReasonOf,
  fromAnthropicContent,
  toAnthropicMessages,
  toAnthropicTools,
} from './anthropic-mapping.ts'
import { callVendor } from './call.ts'
import { type ProviderOptions, resolveEndpoint, sdkClientOptions } from './endpoint.ts'
import { badResponse, type Endpoint } from './errors.ts'
import { once } from './http.ts'
import type { ChatRequest, ChatResult, ChatUsage, ModelProvider } from './types.ts'

const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com'

type UsageFields = Partial<
  Pick<Usage, 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens'>
>

/** Anthropic counts cache reads and writes apart from `input_tokens`; the prompt is their sum. */
function usageOf(usage: UsageFields | null | undefined): ChatUsage {
  const cacheRead = usage?.cache_read_input_tokens ?? 0
  const cacheWrite = usage?.cache_creation_input_tokens ?? 0
  return {
    inputTokens: (usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage?.output_tokens ?? 0,
    ...(cacheRead ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
  }
}

function requestBody(request: ChatRequest, model: string): MessageCreateParamsBase {
  const body: MessageCreateParamsBase = {
    model,
    // The Messages API requires max_tokens; the configured default when the request gives none.
    max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
    // The frozen system prompt is the cache breakpoint: tools and system are cached as one prefix.
    system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
    messages: toAnthropicMessages(request.messages),
  }
  if (request.tools?.length) body.tools = toAnthropicTools(request.tools)
  return body
}

function fromMessage(data: unknown, endpoint: Endpoint): ChatResult {
  const message = data as Message | null
  if (typeof data !== 'object' || data === null || !Array.isArray(message?.content)) {
    throw badResponse(endpoint, 'without a `content` array', data)
  }
  return {
    message: fromAnthropicContent(message.content),
    finishReason: finishReasonOf(message.stop_reason),
    usage: usageOf(message.usage),
  }
}

/** Rebuilds the message from `message_start`, `content_block_*` and `message_delta` events. */
async function readStream(
  stream: AsyncIterable<RawMessageStreamEvent>,
  onText: (delta: string) => void,
  endpoint: Endpoint,
): Promise<ChatResult> {
  const blocks: ContentBlock[] = []
  const partialJson = new Map<number, string>()
  let usage: UsageFields = {}
  let stopReason: string | null = null
  let started = false
  for await (const event of stream) {
    if (event.type === 'message_start') {
      started = true
      usage = { ...event.message.usage }
    } else if (event.type === 'content_block_start') {
      blocks[event.index] = { ...event.content_block } as ContentBlock
    } else if (event.type === 'content_block_delta') {
      const block = blocks[event.index]
      if (event.delta.type === 'text_delta' && block?.type === 'text') {
        block.text += event.delta.text
        onText(event.delta.text)
      } else if (event.delta.type === 'input_json_delta') {
        partialJson.set(event.index, (partialJson.get(event.index) ?? '') + event.delta.partial_json)
      }
    } else if (event.type === 'message_delta') {
      stopReason = event.delta.stop_reason ?? stopReason
      // message_delta usage is cumulative; it carries what is known at the end.
      for (const [key, value] of Object.entries(event.usage)) {
        if (typeof value === 'number') Object.assign(usage, { [key]: value })
      }
    }
  }
  if (!started) throw badResponse(endpoint, 'its stream had no `message_start` event', '')
  for (const [index, json] of partialJson) {
    const block = blocks[index]
    if (block?.type === 'tool_use') block.input = json ? JSON.parse(json) : {}
  }
  return {
    message: fromAnthropicContent(blocks.filter((b) => b !== undefined)),
    finishReason: finishReasonOf(stopReason),
    usage: usageOf(usage),
  }
}

/**
 * A {@link ModelProvider} for the Anthropic Messages API through `@anthropic-ai/sdk`: the system prompt
 * goes in its own parameter with a prompt-caching breakpoint, tool calls and results are mapped to and
 * from the OpenAI wire shape the store keeps. Streams when the request has `onText`. Retries and errors
 * as {@link createOpenAIProvider}.
 */
export function createAnthropicProvider(options: ProviderOptions): ModelProvider {
  const { endpoint, fetch } = resolveEndpoint(options, {
    provider: 'anthropic',
    defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    chatPath: '/v1/messages',
  })
  // The SDK loads on the first chat, so creating a provider (and starting the CLI) does not pay for it.
  const sdk = once(async () => (await import('@anthropic-ai/sdk')).default)
  const client = once(async () => new (await sdk())(sdkClientOptions(endpoint, fetch)))
  return {
    name: 'anthropic',
    model: endpoint.model,
    chat(request) {
      const body = requestBody(request, endpoint.model)
      const options = { signal: request.signal }
      return callVendor<RawMessageStreamEvent>(endpoint, request, {
        sdk,
        json: async () => (await client()).messages.create({ ...body, stream: false }, options),
        stream: async () =>
          (await client()).messages.create({ ...body, stream: true }, options).withResponse(),
        fromJson: (data) => fromMessage(data, endpoint),
        fromStream: (events, onText) => readStream(events, onText, endpoint),
      })
    },
  }
}
