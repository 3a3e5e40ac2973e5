import type { ToolCall } from '@engram/core'
import { type Reply, sendEvents, sendJson } from './http.ts'

export interface ScriptedAnswer {
  text?: string
  toolCalls?: ToolCall[]
  usage: { prompt: number; completion: number; cached?: number }
  model?: string
}

function usage(answer: ScriptedAnswer) {
  return {
    prompt_tokens: answer.usage.prompt,
    completion_tokens: answer.usage.completion,
    total_tokens: answer.usage.prompt + answer.usage.completion,
    ...(answer.usage.cached === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: answer.usage.cached } }),
  }
}

/** A chat completion as the OpenAI API returns it (non-streaming). */
export function completionJson(answer: ScriptedAnswer) {
  const toolCalls = answer.toolCalls ?? []
  return {
    id: 'chatcmpl-local',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: answer.model ?? 'gpt-local',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text ?? (toolCalls.length ? null : ''),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: usage(answer),
  }
}

/**
 * The chunks of a streamed completion as OpenAI sends them: a role chunk, text in pieces, each tool call
 * as an id+name chunk followed by argument fragments, a finish chunk, then the usage chunk (empty choices).
 */
export function completionChunks(answer: ScriptedAnswer): unknown[] {
  const base = {
    id: 'chatcmpl-local',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: answer.model ?? 'gpt-local',
  }
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  })
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
  const text = answer.text ?? ''
  for (let i = 0; i < text.length; i += 7) chunks.push(chunk({ content: text.slice(i, i + 7) }))
  ;(answer.toolCalls ?? []).forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      }),
    )
    const args = call.function.arguments
    for (let i = 0; i < args.length; i += 5) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + 5) } }] }))
    }
  })
  chunks.push(chunk({}, answer.toolCalls?.length ? 'tool_calls' : 'stop'))
  chunks.push({ ...base, choices: [], usage: usage(answer) })
  return chunks
}

/** Answers as the OpenAI API would: streamed when the request asks for it, JSON otherwise. */
export function openaiAnswer(answer: ScriptedAnswer): Reply {
  return async (request, res) => {
    if ((request.body as { stream?: boolean } | null)?.stream) {
      const events = completionChunks(answer).map((c) => ({ data: JSON.stringify(c) }))
      await sendEvents(res, [...events, { data: '[DONE]' }])
    } else sendJson(res, 200, completionJson(answer))
  }
}

/** An OpenAI-style error body. */
export function openaiError(
  status: number,
  message: string,
  code: string | null = null,
  headers: Record<string, string> = {},
): Reply {
  return (_request, res) =>
    sendJson(res, status, { error: { message, type: 'invalid_request_error', param: null, code } }, headers)
}
