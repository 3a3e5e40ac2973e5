import type { ChatMessage, ToolCall } from '@engram/core'
import type { ToolResult } from '../tools/tool.ts'

/**
 * A JSON Schema for a tool's arguments, in the subset that both OpenAI function tools (`parameters`) and
 * Anthropic tools (`input_schema`) accept as they are: an object at the top level. A type alias, not an
 * interface, so that it is assignable to the SDKs' index-signature types without a cast.
 */
export type ToolParameters = {
  type: 'object'
  properties: Record<string, unknown>
  required?: string[]
  additionalProperties?: boolean
}

/** What a model is told about a tool: its name, what it is for, and the JSON Schema of its arguments. */
export interface ToolSpec {
  name: string
  description: string
  parameters: ToolParameters
}

/** One model call. `messages` are in the OpenAI wire shape the store keeps, without the system prompt. */
export interface ChatRequest {
  system: string
  messages: readonly ChatMessage[]
  tools?: readonly ToolSpec[]
  /** Upper bound for the answer; the provider's own default when absent. */
  maxTokens?: number
  signal?: AbortSignal
  /** Called with each piece of answer text as it streams in; without it the call does not stream. */
  onText?: (delta: string) => void
  /**
   * The results of the tool calls answered since the previous model call, by tool call id, with their
   * data: the tool messages carry only the rendered text. For a model that reads data (the offline one);
   * the vendor providers send the messages.
   */
  toolResults?: ReadonlyMap<string, ToolResult>
}

/**
 * Token counts of one call, normalised across vendors: `inputTokens` is the whole prompt, cached parts
 * included (Anthropic reports them apart; they are added back), so it measures the context.
 */
export interface ChatUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
}

/**
 * `stop`: a final answer; `tool_calls`: the model wants tools run; `length`: cut at `maxTokens`;
 * `interrupted`: the stream broke off (a stall, a dropped connection, an abort) after some text, see
 * {@link ProviderError.partial}.
 */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'interrupted' | (string & {})

/** The assistant message always has the OpenAI wire shape (tool calls as `tool_calls`), ready to store. */
export interface ChatResult {
  message: ChatMessage & { role: 'assistant'; tool_calls?: ToolCall[] }
  finishReason: FinishReason
  usage: ChatUsage
}

/**
 * A chat model behind one vendor API. `chat` retries rate limits, server errors and timeouts itself and
 * throws a {@link ProviderError} with one actionable message when it gives up. Cost: one model call (plus
 * its retries).
 */
export interface ModelProvider {
  /** `openai`, `anthropic` or `offline`. */
  readonly name: string
  readonly model: string
  chat(request: ChatRequest): Promise<ChatResult>
}
