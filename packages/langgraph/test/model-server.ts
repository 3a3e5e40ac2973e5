import type { RecordedRequest } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'

/** The model name the compressor's summariser asks for, and the summary it gets. */
export const SUMMARY_MODEL = 'gpt-summary'
export const SUMMARY = 'Summary so far: the user deploys with scripts/deploy.sh on Fridays.'

const usage = { prompt: 40, completion: 6 }
type Sent = { role: string; content: string | null }

/**
 * The model behind the tests' local OpenAI-compatible server (summaries for SUMMARY_MODEL; otherwise, by what the request holds): after a tool result it reports it; a
 * request to remember calls save_note, one to look something up calls lookup; anything else is answered.
 */
export function model(request: RecordedRequest, res: Parameters<ReturnType<typeof openaiAnswer>>[1]) {
  const body = request.body as { model: string; messages: Sent[] }
  if (body.model === SUMMARY_MODEL) return openaiAnswer({ text: SUMMARY, usage })(request, res)
  const messages = body.messages
  const last = messages.at(-1) as Sent
  const call = (name: string, args: object) => ({
    id: `call_${messages.length}`,
    type: 'function' as const,
    function: { name, arguments: JSON.stringify(args) },
  })
  if (last.role === 'tool') return openaiAnswer({ text: `Done (${last.content}).`, usage })(request, res)
  if (/remember/i.test(last.content ?? ''))
    return openaiAnswer({
      toolCalls: [call('save_note', { note: 'deploy with scripts/deploy.sh on Fridays' })],
      usage,
    })(request, res)
  if (/look/i.test(last.content ?? ''))
    return openaiAnswer({ toolCalls: [call('lookup', { topic: 'deploy' })], usage })(request, res)
  return openaiAnswer({
    text: `You said ${messages.filter((m) => m.role === 'user').length} things. 周五部署.`,
    usage,
  })(request, res)
}
