import type {
  ContentBlock,
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages'
import type { ChatMessage, ContentPart, ToolCall } from '@engram/core'
import type { ChatResult, FinishReason, ToolSpec } from './types.ts'

const DATA_URL = /^data:(image\/(?:jpeg|png|gif|webp));base64,/

function imageBlock(url: string): ImageBlockParam {
  const match = DATA_URL.exec(url)
  if (!match) return { type: 'image', source: { type: 'url', url } }
  const mediaType = match[1] as 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'
  return {
    type: 'image',
    source: { type: 'base64', media_type: mediaType, data: url.slice(match[0].length) },
  }
}

function contentBlocks(content: ChatMessage['content']): (TextBlockParam | ImageBlockParam)[] {
  if (content === null || content === '') return []
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return content.flatMap((part: ContentPart): (TextBlockParam | ImageBlockParam)[] => {
    if (part.type === 'text' && typeof part.text === 'string')
      return part.text ? [{ type: 'text', text: part.text }] : []
    const url = (part as { image_url?: { url?: unknown } }).image_url?.url
    if (part.type === 'image_url' && typeof url === 'string') return [imageBlock(url)]
    return [{ type: 'text', text: JSON.stringify(part) }]
  })
}

/** Tool arguments as the object Anthropic requires; arguments that are not a JSON object are wrapped. */
function toolInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args || '{}')
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>
    return { value: parsed }
  } catch {
    return { unparsed_arguments: args }
  }
}

function textOfContent(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content
  if (content === null) return ''
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('')
}

function blocksOf(message: ChatMessage): { role: 'user' | 'assistant'; blocks: ContentBlockParam[] } {
  if (message.role === 'tool') {
    return {
      role: 'user',
      blocks: [
        {
          type: 'tool_result',
          tool_use_id: message.tool_call_id ?? '',
          content: textOfContent(message.content),
        },
      ],
    }
  }
  if (message.role === 'assistant') {
    const calls = (message.tool_calls ?? []).map(
      (call): ContentBlockParam => ({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: toolInput(call.function.arguments),
      }),
    )
    return { role: 'assistant', blocks: [...contentBlocks(message.content), ...calls] }
  }
  // A system message inside the history (not the session's prompt) reaches Claude as user text.
  const blocks = contentBlocks(message.content)
  return {
    role: 'user',
    blocks:
      message.role === 'system'
        ? blocks.map((b) => (b.type === 'text' ? { ...b, text: `[system] ${b.text}` } : b))
        : blocks,
  }
}

/**
 * OpenAI-shaped history → Anthropic messages: assistant `tool_calls` become `tool_use` blocks, `tool`
 * messages become `tool_result` blocks in a user message, and consecutive messages of the same role
 * (several tool results, or results followed by user text) are merged into one message. Empty messages
 * are dropped (the API refuses them).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const result: MessageParam[] = []
  for (const message of messages) {
    const { role, blocks } = blocksOf(message)
    if (blocks.length === 0) continue
    const last = result.at(-1)
    if (last?.role === role) (last.content as ContentBlockParam[]).push(...blocks)
    else result.push({ role, content: blocks })
  }
  return result
}

/** Tool specs as Anthropic tools (`input_schema` is the same JSON Schema). */
export function toAnthropicTools(tools: readonly ToolSpec[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.parameters } as Tool['input_schema'],
  }))
}

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
}

export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  return stopReason ? (STOP_REASONS[stopReason] ?? stopReason) : 'stop'
}

/** Anthropic content blocks → the assistant message in the OpenAI wire shape (text joined, `tool_use` → `tool_calls`). */
export function fromAnthropicContent(content: readonly ContentBlock[]): ChatResult['message'] {
  const text = content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  const toolCalls = content.flatMap((block): ToolCall[] =>
    block.type === 'tool_use'
      ? [
          {
            id: block.id,
            type: 'function',
            function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
          },
        ]
      : [],
  )
  if (toolCalls.length === 0) return { role: 'assistant', content: text }
  return { role: 'assistant', content: text || null, tool_calls: toolCalls }
}
