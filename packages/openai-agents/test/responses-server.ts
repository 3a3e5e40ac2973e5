import { type RecordedRequest, type Reply, sendEvents, sendJson } from '../../agent/test/servers/http.ts'

/** One scripted Responses API answer: a reasoning item, then a function call or a text message. */
export interface ResponsesAnswer {
  reasoning?: string
  call?: { callId: string; name: string; arguments: string }
  text?: string
  usage: { input: number; output: number }
}

type InputItem = Record<string, unknown>

/**
 * What the Responses API refuses in a request's `input` (its 400s): a reasoning item that is the last
 * item or is followed by another reasoning item ("was provided without its required following item"),
 * a function call without its output, an output without its call.
 */
export function responsesInputProblems(input: readonly InputItem[]): string[] {
  const problems: string[] = []
  const calls = new Set(input.filter((i) => i.type === 'function_call').map((i) => i.call_id))
  const outputs = new Set(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id))
  input.forEach((item, index) => {
    const next = input[index + 1]
    if (item.type === 'reasoning' && (next === undefined || next.type === 'reasoning'))
      problems.push(
        `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`,
      )
    if (item.type === 'function_call' && !outputs.has(item.call_id))
      problems.push(`No tool output found for function call ${String(item.call_id)}.`)
    if (item.type === 'function_call_output' && !calls.has(item.call_id))
      problems.push(`No tool call found for function call output with call_id ${String(item.call_id)}.`)
  })
  return problems
}

let responses = 0

/** The response object as the Responses API returns it. */
function responseJson(answer: ResponsesAnswer) {
  const n = ++responses
  const output: unknown[] = []
  if (answer.reasoning !== undefined) {
    output.push({
      type: 'reasoning',
      id: `rs_${n}`,
      summary: [{ type: 'summary_text', text: answer.reasoning }],
      encrypted_content: `enc_${n}`,
    })
  }
  if (answer.call) {
    output.push({
      type: 'function_call',
      id: `fc_${n}`,
      call_id: answer.call.callId,
      name: answer.call.name,
      arguments: answer.call.arguments,
      status: 'completed',
    })
  }
  if (answer.text !== undefined) {
    output.push({
      type: 'message',
      id: `msg_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer.text, annotations: [] }],
    })
  }
  return {
    id: `resp_${n}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: 'gpt-local',
    output,
    usage: {
      input_tokens: answer.usage.input,
      output_tokens: answer.usage.output,
      total_tokens: answer.usage.input + answer.usage.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  }
}

/**
 * Answers a `POST /v1/responses` as the API would: JSON, or when the request asks for a stream the
 * `response.created`, `response.output_item.done` and `response.completed` events. A request whose input
 * the API would refuse gets its 400.
 */
export function responsesAnswer(answer: ResponsesAnswer): Reply {
  return async (request: RecordedRequest, res) => {
    const body = request.body as { input?: InputItem[]; stream?: boolean }
    const problems = responsesInputProblems(body.input ?? [])
    if (problems.length > 0) {
      sendJson(res, 400, { error: { message: problems[0], type: 'invalid_request_error', code: null } })
      return
    }
    const response = responseJson(answer)
    if (!body.stream) {
      sendJson(res, 200, response)
      return
    }
    let sequence = 0
    const event = (data: Record<string, unknown>) => ({
      event: String(data.type),
      data: JSON.stringify({ ...data, sequence_number: sequence++ }),
    })
    await sendEvents(res, [
      event({ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }),
      ...response.output.map((item, index) =>
        event({ type: 'response.output_item.done', output_index: index, item }),
      ),
      event({ type: 'response.completed', response }),
    ])
  }
}
