import { type CallObserver, timedChat } from '../providers/auxiliary.ts'
import type { ChatResult, ModelProvider, ToolSpec } from '../providers/types.ts'
import type { Conversation } from './conversation.ts'
import type { RunOptions } from './options.ts'

export interface MainCall {
  provider: ModelProvider
  tools: readonly ToolSpec[]
  maxTokens: number
  observe: CallObserver
}

/**
 * One call of the main model over the conversation. The prompt tokens it reports become the
 * conversation's measurement; when the answer breaks off (abort, stall, dropped connection), the text the user already saw is kept in
 * the conversation, marked as cut off.
 */
export async function callMainModel(
  conversation: Conversation,
  call: MainCall,
  options: RunOptions,
): Promise<ChatResult> {
  const partial: string[] = []
  const onText = options.onText
  try {
    const result = await timedChat(
      call.provider,
      {
        system: conversation.systemPrompt,
        messages: conversation.sendable(),
        toolResults: conversation.toolResults,
        tools: call.tools,
        maxTokens: call.maxTokens,
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
      call.observe,
    )
    conversation.measured =
      result.usage.inputTokens > 0
        ? { tokens: result.usage.inputTokens, messages: conversation.history.length }
        : null
    return result
  } catch (error) {
    // Text the user already saw is part of the conversation, however the answer broke off (an abort, a
    // stall, a dropped connection): keep it, marked as cut off.
    if (partial.length > 0)
      await conversation.append({ role: 'assistant', content: `${partial.join('')} [interrupted]` })
    throw error
  }
}
