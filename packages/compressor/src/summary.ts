import type { ChatMessage, ContentPart } from '@engram/core/types'
import { type CompressibleMessage, describeCall, indexToolCalls, textOf } from './messages.ts'
import { redactSecrets } from './redact.ts'
import type { SummaryRequest } from './summarizer.ts'

/** First line of every summary message; a later pass finds the previous summary by it. */
export const SUMMARY_MARKER = '[CONTEXT SUMMARY — REFERENCE ONLY]'

const SUMMARY_NOTE =
  'Earlier turns of this conversation were condensed into the summary below. It is background for reference, ' +
  'not a new instruction; the conversation continues after it.'

/** The sections of the structured summary, in order. */
export const SUMMARY_SECTIONS = [
  'Goal',
  'Constraints and preferences',
  'Completed actions',
  'Current state',
  'Decisions',
  'Open questions',
  'Relevant files',
  'Critical context',
] as const

/** Per-message clip in the transcript: long tool outputs keep their start and their end (where errors land). */
const TRANSCRIPT_HEAD_CHARS = 1_500
const TRANSCRIPT_TAIL_CHARS = 500

/** Whether a message is a summary written by the compressor. */
export function isSummaryMessage(message: ChatMessage): boolean {
  return textOf(message).startsWith(SUMMARY_MARKER)
}

/** The summary text inside a summary message, without the marker and the note. */
export function summaryBody(message: ChatMessage): string {
  return textOf(message).slice(SUMMARY_MARKER.length).trimStart().replace(SUMMARY_NOTE, '').trim()
}

/** The message that carries `body` into the compressed conversation. */
export function summaryMessage(body: string, role: 'user' | 'assistant'): ChatMessage {
  return { role, content: `${SUMMARY_MARKER}\n${SUMMARY_NOTE}\n\n${body}` }
}

const SCRIPTS: readonly [RegExp, string][] = [
  [/[\u3040-\u30ff]/g, 'Japanese'],
  [/[\uac00-\ud7af]/g, 'Korean'],
  [/[\u4e00-\u9fff]/g, 'Chinese'],
  [/[\u0400-\u04ff]/g, 'Russian'],
  [/[\u0600-\u06ff]/g, 'Arabic'],
]

/**
 * The language of the users' messages when their script gives it away (kana before Han, so Japanese text with
 * kanji is not read as Chinese); null for Latin-script and mixed text, where the model is told to follow the user.
 */
export function detectLanguage(messages: readonly ChatMessage[]): string | null {
  const text = messages
    .filter((m) => m.role === 'user' && !isSummaryMessage(m))
    .map(textOf)
    .join('\n')
  const letters = text.match(/\p{L}/gu)?.length ?? 0
  if (letters === 0) return null
  for (const [pattern, language] of SCRIPTS) {
    const share = (text.match(pattern)?.length ?? 0) / letters
    // Japanese mixes kana with kanji, so a modest share of kana is already decisive.
    if (share >= (language === 'Japanese' ? 0.1 : 0.3)) return language
  }
  return null
}

function clip(text: string): string {
  if (text.length <= TRANSCRIPT_HEAD_CHARS + TRANSCRIPT_TAIL_CHARS) return text
  const omitted = text.length - TRANSCRIPT_HEAD_CHARS - TRANSCRIPT_TAIL_CHARS
  return `${text.slice(0, TRANSCRIPT_HEAD_CHARS)}\n…[${omitted} chars omitted]…\n${text.slice(-TRANSCRIPT_TAIL_CHARS)}`
}

function clipContent<C extends ChatMessage['content']>(content: C): C {
  if (typeof content === 'string') return redactSecrets(clip(content)) as C
  if (!Array.isArray(content)) return content
  return content.map(
    (part: ContentPart): ContentPart =>
      part.type === 'text' && typeof part.text === 'string'
        ? { type: 'text', text: redactSecrets(clip(part.text)) }
        : part,
  ) as C
}

/** Redacted, clipped copies of the turns: what the summariser may see. */
function prepare(messages: readonly CompressibleMessage[]): ChatMessage[] {
  return messages.map((message) => {
    const copy: Record<string, unknown> = { role: message.role, content: clipContent(message.content) }
    if (message.tool_calls) {
      copy.tool_calls = message.tool_calls.map((call) => ({
        ...call,
        function: { name: call.function.name, arguments: redactSecrets(clip(call.function.arguments)) },
      }))
    }
    if (message.tool_call_id !== undefined) copy.tool_call_id = message.tool_call_id
    if (message.name !== undefined) copy.name = message.name
    return copy as unknown as ChatMessage
  })
}

function transcript(messages: readonly ChatMessage[]): string {
  const calls = indexToolCalls(messages)
  const lines: string[] = []
  for (const message of messages) {
    const text = textOf(message)
    const images = Array.isArray(message.content)
      ? message.content.filter((p) => p.type === 'image_url').length
      : 0
    const body = images > 0 ? `${text}${text ? ' ' : ''}[${images} image(s)]` : text
    if (message.role === 'tool') {
      lines.push(`[tool result of ${describeCall(calls.get(message.tool_call_id ?? ''))}]\n${body}`)
      continue
    }
    if (body) lines.push(`[${message.role}]\n${body}`)
    for (const call of message.tool_calls ?? []) {
      lines.push(`[assistant calls ${call.function.name}] ${call.function.arguments}`)
    }
  }
  return lines.join('\n\n')
}

function instructions(language: string | null, maxTokens: number, updating: boolean): string {
  const sections = SUMMARY_SECTIONS.map((title) => `## ${title}`).join('\n')
  const task = updating
    ? 'You are given the previous summary of an AI assistant’s conversation and the turns that followed it. ' +
      'Return the updated summary: keep what is still true, fold in the new turns, drop what they made obsolete. ' +
      'Update it; do not summarise the summary.'
    : 'Summarise the earlier part of a conversation between a user and an AI assistant. The assistant will read ' +
      'your summary instead of those turns, so it must be able to carry on the work from it alone.'
  return [
    task,
    `Write in ${language ?? 'the language the user writes in'}. Stay under ${maxTokens} tokens.`,
    `Use exactly these Markdown sections, in this order; write "None" under a section with nothing to report:\n${sections}`,
    'Keep names, file paths, commands, numbers and error messages exact. Leave out pleasantries and dead ends.',
    'Never write secrets (API keys, tokens, passwords); write [REDACTED] instead.',
  ].join('\n\n')
}

/** The request for the summariser: turns to fold in, the previous summary to update, the template. */
export function buildSummaryRequest(
  messages: readonly CompressibleMessage[],
  previousSummary: string | null,
  maxTokens: number,
): SummaryRequest {
  const prepared = prepare(messages)
  const language = detectLanguage(messages)
  const redactedPrevious = previousSummary === null ? null : redactSecrets(previousSummary)
  const parts = []
  if (redactedPrevious !== null) parts.push(`<previous-summary>\n${redactedPrevious}\n</previous-summary>`)
  parts.push(`<conversation>\n${transcript(prepared)}\n</conversation>`)
  return {
    system: instructions(language, maxTokens, redactedPrevious !== null),
    prompt: parts.join('\n\n'),
    messages: prepared,
    previousSummary: redactedPrevious,
    maxTokens,
    language,
  }
}
