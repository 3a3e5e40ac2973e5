import { type Reply, sendEvents, sendJson } from './http.ts'

export interface AnthropicScript {
  text?: string
  toolUses?: { id: string; name: string; input: Record<string, unknown> }[]
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number }
}

function content(script: AnthropicScript) {
  return [
    ...(script.text ? [{ type: 'text', text: script.text }] : []),
    ...(script.toolUses ?? []).map((use) => ({ type: 'tool_use', ...use })),
  ]
}

function usage(script: AnthropicScript, output: number) {
  return {
    input_tokens: script.usage.input,
    output_tokens: output,
    cache_read_input_tokens: script.usage.cacheRead ?? 0,
    cache_creation_input_tokens: script.usage.cacheWrite ?? 0,
  }
}

const stopReason = (script: AnthropicScript) => (script.toolUses?.length ? 'tool_use' : 'end_turn')

/** A Messages API response (non-streaming). */
export function messageJson(script: AnthropicScript) {
  return {
    id: 'msg_local',
    type: 'message',
    role: 'assistant',
    model: 'claude-local',
    content: content(script),
    stop_reason: stopReason(script),
    stop_sequence: null,
    usage: usage(script, script.usage.output),
  }
}

/**
 * The events of a streamed message as Anthropic sends them: message_start (input usage), per block a
 * content_block_start, text_delta / input_json_delta pieces and content_block_stop, a ping, message_delta
 * (stop reason, cumulative output usage) and message_stop.
 */
export function messageEvents(script: AnthropicScript): { event: string; data: string }[] {
  const events: { event: string; data: unknown }[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...messageJson(script), content: [], stop_reason: null, usage: usage(script, 1) },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ]
  content(script).forEach((block, index) => {
    if (block.type === 'text') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      })
      const text = (block as { text: string }).text
      for (let i = 0; i < text.length; i += 6) {
        events.push({
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: text.slice(i, i + 6) },
          },
        })
      }
    } else {
      const { input, ...rest } = block as { input: unknown }
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { ...rest, input: {} } },
      })
      const json = JSON.stringify(input)
      for (let i = 0; i < json.length; i += 4) {
        events.push({
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 4) },
          },
        })
      }
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
  })
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason(script), stop_sequence: null },
      usage: { output_tokens: script.usage.output },
    },
  })
  events.push({ event: 'message_stop', data: { type: 'message_stop' } })
  return events.map((e) => ({ event: e.event, data: JSON.stringify(e.data) }))
}

export function anthropicAnswer(script: AnthropicScript): Reply {
  return async (request, res) => {
    if ((request.body as { stream?: boolean } | null)?.stream) await sendEvents(res, messageEvents(script))
    else sendJson(res, 200, messageJson(script))
  }
}

export function anthropicError(status: number, type: string, message: string): Reply {
  return (_request, res) => sendJson(res, status, { type: 'error', error: { type, message } })
}
