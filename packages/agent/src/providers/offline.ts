import { bpeTokenCounter, countMessages, isSummaryMessage, textOf } from '@engram/compressor'
import type { ChatMessage, ToolCall } from '@engram/core'
import { ENTRY_DELIMITER } from '../memory/format.ts'
import { BLOCK_HEADER_START, EMPTY_BLOCK } from '../memory/snapshot.ts'
import { ENVIRONMENT, PREFERENCE } from '../prompts/fact-kinds.ts'
import { CONSOLIDATE_MARKER, DATE_LINE_START, NUDGE_MARKER } from '../prompts/markers.ts'
import type { SessionSearchResult } from '../tools/session-search.ts'
import type { ToolResult } from '../tools/tool.ts'
import { throwIfCancelled } from './errors.ts'
import { isSummaryInstruction, offlineSummary } from './offline-summary.ts'
import { bestMatch, clip, overlap, parseTranscript, searchQuery, tagged, termsOf } from './offline-text.ts'
import type { ChatRequest, ChatResult, ModelProvider } from './types.ts'

/** The model id the offline model reports (stored on sessions and usage rows). */
export const OFFLINE_MODEL_ID = 'engram-offline'

const REMEMBER =
  /^\s*(?:please\s+|can you\s+)?(?:remember|note|keep in mind|save)(?:\s+that)?\s*[:,]?\s+(.+)$/is
const REMEMBER_ZH = /^\s*(?:请|帮我)?(?:记住|记一下|记下)(?:一下)?[:：，,]?\s*(.+)$/s
const PAST_QUESTION =
  /\b(?:i|we|you)\s+(?:said|told|mentioned|decided|used|discussed|talked|picked|chose)\b|\bdid\s+(?:i|we|you)\s+(?:say|tell|mention|decide|use|discuss|talk|pick|choose)\b|\b(?:last time|previously|earlier|do you remember|remind me)\b|上次|之前|以前|还记得|说过|提过|聊过/i
const QUESTION = /[?？]\s*$|^\s*(?:what|which|who|where|when|how|do|does|is|are)\b|什么|哪|谁|吗\s*$/i
const ABOUT_USER = /^\s*(?:i|my|i'm|i've)\b|^\s*我(?!们)/i

const HELP =
  'I am the offline model (no API key configured): I can save facts ("remember …" / "记住…"), answer from memory, and look up past conversations ("what did I say about …" / "上次…").'

/** The lines of the memory blocks in a prompt (the system prompt's snapshot, or the review's). */
function memoryEntries(system: string): string[] {
  const entries: string[] = []
  let inBlock = false
  for (const line of system.split('\n')) {
    const text = line.trim()
    if (line.startsWith(BLOCK_HEADER_START)) inBlock = true
    else if (line.startsWith(DATE_LINE_START)) inBlock = false
    else if (inBlock && text && text !== ENTRY_DELIMITER && text !== EMPTY_BLOCK) entries.push(text)
  }
  return entries
}

/** The bullets of the compression summaries in the conversation. */
function summaryLines(messages: readonly ChatMessage[]): string[] {
  return messages
    .filter(isSummaryMessage)
    .flatMap((m) => textOf(m).split('\n'))
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2))
}

/**
 * What the user stated earlier in this conversation (the last message, the question, left out), newest
 * first, "remember" stripped: the memory snapshot in the system prompt is frozen at the session's start,
 * so a fact said or saved in this session is known from here.
 */
function statedInConversation(messages: readonly ChatMessage[]): string[] {
  return messages
    .slice(0, -1)
    .filter((m) => m.role === 'user' && !isSummaryMessage(m))
    .map((m) => textOf(m).trim())
    .filter(
      (text) => text && !text.startsWith(NUDGE_MARKER) && !QUESTION.test(text) && !PAST_QUESTION.test(text),
    )
    .map((text) => factOf(text) ?? text)
    .reverse()
}

function factOf(text: string): string | null {
  const match = REMEMBER.exec(text) ?? REMEMBER_ZH.exec(text)
  return match ? (match[1] as string).trim().replace(/[.。!！]+$/, '') : null
}

function call(request: ChatRequest, index: number, name: string, args: Record<string, unknown>): ToolCall {
  return {
    id: `call_offline_${request.messages.length}_${index}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  }
}

const hasTool = (request: ChatRequest, name: string) =>
  request.tools?.some((tool) => tool.name === name) ?? false

function argumentsOf(toolCall: ToolCall | undefined): Record<string, unknown> {
  try {
    return JSON.parse(toolCall?.function.arguments ?? '{}') as Record<string, unknown>
  } catch {
    return {}
  }
}

/** The messages a session_search result quotes (of a query; none for a session read or a list). */
function quotedMessages(result: SessionSearchResult) {
  return result.kind === 'hits'
    ? result.hits.flatMap((hit) => (hit.kind === 'message' ? hit.messages : []))
    : []
}

/**
 * The answer to the results of the tool calls the offline model made in its previous turn. It reads their
 * data (`request.toolResults`); a result it has no data for (a run resumed after its calls) is quoted.
 */
function answerToolResults(request: ChatRequest): string {
  const { messages } = request
  let start = messages.length
  while (start > 0 && messages[start - 1]?.role === 'tool') start--
  const asked = messages[start - 1]
  const parts: string[] = []
  for (const result of messages.slice(start)) {
    const toolCall = asked?.tool_calls?.find((c) => c.id === result.tool_call_id)
    const text = textOf(result)
    const args = argumentsOf(toolCall)
    const outcome: ToolResult | undefined = request.toolResults?.get(result.tool_call_id ?? '')
    if (toolCall?.function.name === 'memory' && outcome) {
      const saved = [
        args.content,
        ...((args.operations as { content?: string }[] | undefined) ?? []).map((o) => o.content),
      ]
      const what = saved.filter((s): s is string => typeof s === 'string').join('; ')
      parts.push(
        outcome.ok
          ? `Saved to memory: ${what}. (${text})`
          : `I could not save that: ${outcome.error.message}`,
      )
    } else if (toolCall?.function.name === 'session_search' && outcome?.ok) {
      const query = String(args.query ?? '')
      // Statements only: the questions that led to them match the query just as well.
      const lines = quotedMessages(outcome.data as SessionSearchResult)
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => m.text)
        .filter((line) => line && !QUESTION.test(line) && !PAST_QUESTION.test(line))
      const found = bestMatch(termsOf(query), lines)
      parts.push(
        found
          ? `From a past conversation: ${found}`
          : `I found nothing about "${query}" in past conversations.`,
      )
    } else parts.push(`The tool returned: ${clip(text, 300)}`)
  }
  return parts.join('\n')
}

function nudgeTurn(request: ChatRequest, userText: string): ChatResult['message'] {
  const known = memoryEntries(request.system).join('\n')
  const statements = parseTranscript(userText)
    .filter((t) => t.label === 'user' && !QUESTION.test(t.text) && !factOf(t.text))
    .map((t) => clip(t.text, 200))
    .filter((t) => (PREFERENCE.test(t) || ENVIRONMENT.test(t)) && !known.includes(t))
  const byTarget = {
    user: statements.filter((t) => PREFERENCE.test(t)),
    memory: statements.filter((t) => !PREFERENCE.test(t)),
  }
  const calls = Object.entries(byTarget)
    .filter(([, items]) => items.length > 0)
    .map(([target, items], i) =>
      call(request, i, 'memory', {
        target,
        operations: items.map((content) => ({ action: 'add', content })),
      }),
    )
  const note = request.system.includes(CONSOLIDATE_MARKER)
    ? ' (the offline model cannot merge entries; consolidate by hand)'
    : ''
  if (calls.length === 0) return { role: 'assistant', content: `nothing to save${note}` }
  return {
    role: 'assistant',
    content: `Saving ${statements.length} durable fact(s)${note}.`,
    tool_calls: calls,
  }
}

function userTurn(request: ChatRequest, text: string): ChatResult['message'] {
  const fact = factOf(text)
  if (fact && hasTool(request, 'memory')) {
    const target = ABOUT_USER.test(fact) || PREFERENCE.test(fact) ? 'user' : 'memory'
    return {
      role: 'assistant',
      content: null,
      tool_calls: [call(request, 0, 'memory', { target, action: 'add', content: fact })],
    }
  }
  const terms = termsOf(text)
  const query = searchQuery(text)
  if (PAST_QUESTION.test(text) && hasTool(request, 'session_search') && query) {
    return { role: 'assistant', content: null, tool_calls: [call(request, 0, 'session_search', { query })] }
  }
  if (QUESTION.test(text)) {
    const said = bestMatch(terms, statedInConversation(request.messages))
    const found = bestMatch(terms, memoryEntries(request.system))
    const summarised = bestMatch(terms, summaryLines(request.messages))
    const score = (line: string | null | undefined) => (line ? overlap(terms, line) : 0)
    // What was said in this session is newer than the snapshot and the summary: it wins a tie, never a
    // better match (a compressed fact in the summary beats an earlier turn that shares one word).
    if (said && score(said) >= Math.max(score(found), score(summarised)))
      return { role: 'assistant', content: `From our conversation: ${said}` }
    if (found && score(found) > 0) return { role: 'assistant', content: `From memory: ${found}` }
    if (summarised)
      return { role: 'assistant', content: `From the summary of our earlier conversation: ${summarised}` }
    return { role: 'assistant', content: `I don't know yet. ${HELP}` }
  }
  return { role: 'assistant', content: `Noted: "${clip(text, 120)}". ${HELP}` }
}

function reply(request: ChatRequest): ChatResult['message'] {
  if (isSummaryInstruction(request.system)) {
    const prompt = textOf(request.messages.at(-1) ?? { role: 'user', content: '' })
    return { role: 'assistant', content: offlineSummary({ prompt, maxTokens: request.maxTokens ?? 1_500 }) }
  }
  const last = request.messages.at(-1)
  if (!last) return { role: 'assistant', content: HELP }
  if (last.role === 'tool') return { role: 'assistant', content: answerToolResults(request) }
  const text = textOf(last)
  if (text.startsWith(NUDGE_MARKER) && hasTool(request, 'memory'))
    return nudgeTurn(request, tagged(text, 'conversation') ?? text)
  return userTurn(request, text)
}

/**
 * A deterministic {@link ModelProvider} that needs no network, for demos and tests. It really uses the
 * tools: "remember …" / "记住…" calls `memory` (target `user` for statements about the user), a question
 * about the past ("what did I say about …", "上次…") calls `session_search` and answers with the best
 * matching line of its result, other questions are answered from what the user stated earlier in the
 * conversation (newest first), else from the memory entries in the system prompt;
 * it writes structured summaries for the compressor and distils preference and environment statements in
 * a memory review. It does not reason, plan, chain tools or write code. Usage is counted with the
 * compressor's BPE token counter; text streams word by word through `onText`.
 */
export function createOfflineModel(model = OFFLINE_MODEL_ID): ModelProvider {
  return {
    name: 'offline',
    model,
    async chat(request) {
      throwIfCancelled(request.signal)
      const message = reply(request)
      if (typeof message.content === 'string' && request.onText) {
        for (const piece of message.content.match(/\S+\s*|\s+/g) ?? []) request.onText(piece)
      }
      const prompt: ChatMessage[] = [{ role: 'system', content: request.system }, ...request.messages]
      const toolTokens = bpeTokenCounter.countText(JSON.stringify(request.tools ?? []))
      return {
        message,
        finishReason: message.tool_calls ? 'tool_calls' : 'stop',
        usage: {
          inputTokens: countMessages(bpeTokenCounter, prompt) + (request.tools?.length ? toolTokens : 0),
          outputTokens: bpeTokenCounter.countMessage(message),
        },
      }
    },
  }
}
