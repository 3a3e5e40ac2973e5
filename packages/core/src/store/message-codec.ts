import type { MessageIndexing } from '../dialects/dialect.ts'
import type { SqlValue } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { holdsNul, messageSearchText } from '../search/index-text.ts'
import type {
  ChatMessage,
  ContentPart,
  InputContentPart,
  MessageInput,
  Role,
  StoredMessage,
  ToolCall,
} from '../types.ts'
import { isWellFormed } from '../validation.ts'

const ROLES: ReadonlySet<string> = new Set<Role>(['system', 'user', 'assistant', 'tool'])

/** The columns of a message that is not retrieval traffic (its `retrieval` is left null). */
export const PLAIN_MESSAGE_COLUMNS =
  'role, content, content_parts, tool_calls, tool_call_id, name, timestamp, token_count, search_text'
/** The columns of a message row, in the order of EncodedMessage.values: the plain ones, then `retrieval`. */
export const MESSAGE_COLUMNS = `${PLAIN_MESSAGE_COLUMNS}, retrieval`

export interface EncodedMessage {
  values: SqlValue[]
  /** The characters of its content and tool calls: what indexing it reads. */
  chars: number
  message: ChatMessage
  timestamp: number
  tokenCount: number | null
  retrieval: boolean
}

const invalid = (message: string) => new EngramError('INVALID_MESSAGE', message)

function textOfParts(parts: readonly InputContentPart[]): string {
  return parts
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n')
}

function toJson(value: unknown, what: string): string {
  try {
    return JSON.stringify(value)
  } catch (cause) {
    throw new EngramError(
      'INVALID_MESSAGE',
      `${what} cannot be serialised to JSON (${(cause as Error).message}). Pass plain objects, strings and numbers.`,
      { cause },
    )
  }
}

function encodeToolCalls(toolCalls: ToolCall[] | string): { json: string; calls: ToolCall[] } {
  if (typeof toolCalls === 'string') {
    let calls: unknown
    try {
      calls = JSON.parse(toolCalls)
    } catch (cause) {
      throw new EngramError(
        'INVALID_MESSAGE',
        `tool_calls is a string but not JSON: ${(cause as Error).message}. Pass the array of tool calls.`,
        { cause },
      )
    }
    if (!Array.isArray(calls)) throw invalid('tool_calls must be an array of tool calls (or its JSON text).')
    return { json: toolCalls, calls }
  }
  if (!Array.isArray(toolCalls))
    throw invalid('tool_calls must be an array of tool calls (or its JSON text).')
  return { json: toJson(toolCalls, 'tool_calls'), calls: toolCalls }
}

/** Validates a message and turns it into column values; throws INVALID_MESSAGE before anything is written. */
export function encodeMessage(input: MessageInput, now: number, indexing: MessageIndexing): EncodedMessage {
  if (input === null || typeof input !== 'object') throw invalid('A message must be an object with a role.')
  const { role } = input
  if (!ROLES.has(role)) {
    throw invalid(`Invalid role ${JSON.stringify(role)}: use one of system, user, assistant, tool.`)
  }
  if (role === 'tool' && (typeof input.tool_call_id !== 'string' || input.tool_call_id === '')) {
    throw invalid('A tool message needs the tool_call_id of the call it answers.')
  }
  if (input.tool_calls !== undefined && input.tool_calls !== null && role !== 'assistant') {
    throw invalid(`Only assistant messages carry tool_calls (this one has role ${role}).`)
  }
  const content = input.content ?? null
  if (content !== null && typeof content !== 'string' && !Array.isArray(content)) {
    throw invalid('content must be a string, null or an array of content parts.')
  }
  const parts = Array.isArray(content) ? content : null
  if (parts?.some((part) => part === null || typeof part !== 'object' || typeof part.type !== 'string')) {
    throw invalid(
      'Each content part must be an object with a string type, such as { type: "text", text: "..." }.',
    )
  }
  const partsJson = parts ? toJson(parts, 'The content parts') : null
  const text = parts ? textOfParts(parts) : (content as string | null)
  const toolCalls = input.tool_calls == null ? null : encodeToolCalls(input.tool_calls)

  const searchText = messageSearchText(text, toolCalls?.calls ?? [])
  const searchColumn = indexing.column(searchText, holdsNul(text, toolCalls?.json ?? null))

  for (const key of ['tool_call_id', 'name'] as const) {
    if (input[key] != null && typeof input[key] !== 'string')
      throw invalid(`${key} must be a string when given.`)
  }
  // SQLite stores UTF-8, which cannot hold a lone surrogate: drivers would replace it, each its own way.
  // (JSON columns are safe: JSON.stringify escapes lone surrogates, so parts and tool calls round-trip.)
  for (const [key, value] of [
    ['content', typeof content === 'string' ? content : null],
    ['tool_call_id', input.tool_call_id],
    ['name', input.name],
  ] as const) {
    if (typeof value === 'string' && !isWellFormed(value)) {
      throw invalid(`${key} holds a lone UTF-16 surrogate, which cannot be stored. Pass text.toWellFormed().`)
    }
  }
  const timestamp = input.timestamp ?? now
  if (!Number.isFinite(timestamp))
    throw invalid('timestamp must be a number of milliseconds since the epoch.')
  if (input.retrieval !== undefined && typeof input.retrieval !== 'boolean') {
    throw invalid('retrieval must be true or false when given.')
  }
  const tokenCount = input.tokenCount ?? null
  if (tokenCount !== null && !(Number.isInteger(tokenCount) && tokenCount >= 0)) {
    throw invalid('tokenCount must be a whole number of at least 0 when given.')
  }
  const message = { role, content } as Record<string, unknown>
  if (toolCalls) message.tool_calls = toolCalls.calls
  if (input.tool_call_id != null) message.tool_call_id = input.tool_call_id
  if (input.name != null) message.name = input.name
  return {
    chars: (searchText ?? text ?? '').length,
    values: [
      role,
      text,
      partsJson,
      toolCalls?.json ?? null,
      input.tool_call_id ?? null,
      input.name ?? null,
      timestamp,
      tokenCount,
      searchColumn,
      input.retrieval ? 1 : null,
    ],
    message: message as unknown as ChatMessage,
    timestamp,
    tokenCount,
    retrieval: input.retrieval === true,
  }
}

export interface MessageRow {
  id: number
  role: Role
  content: string | null
  content_parts: string | null
  tool_calls: string | null
  tool_call_id: string | null
  name: string | null
}

/**
 * A JSON array column of a stored message: null when the column is NULL. The store writes only arrays
 * there; text another tool wrote that is not one fails the read with the message's id and how to repair the
 * row (the text is not quoted: tool arguments can hold secrets).
 */
function storedArray(row: MessageRow, column: 'content_parts' | 'tool_calls'): unknown[] | null {
  const json = row[column]
  if (json === null) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    parsed = undefined
  }
  if (Array.isArray(parsed)) return parsed
  throw new EngramError(
    'DATABASE_ERROR',
    `Reading message ${row.id}: its ${column} column holds ${parsed === undefined ? 'text that is not JSON' : 'JSON that is not an array'} (${json.length} characters), written by another tool. Set it to a JSON array or to NULL (UPDATE messages SET ${column} = NULL WHERE id = ${row.id}), or delete that message.`,
  )
}

export function decodeMessage(row: MessageRow): ChatMessage {
  const parts = storedArray(row, 'content_parts') as ContentPart[] | null
  const message: Record<string, unknown> = { role: row.role, content: parts ?? row.content }
  const calls = storedArray(row, 'tool_calls') as ToolCall[] | null
  if (calls !== null) message.tool_calls = calls
  if (row.tool_call_id !== null) message.tool_call_id = row.tool_call_id
  if (row.name !== null) message.name = row.name
  return message as unknown as ChatMessage
}

export interface StoredMessageRow extends MessageRow {
  session_id: string
  timestamp: number
  token_count: number | null
  retrieval: number | null
}

/** The columns a StoredMessageRow is read from (`t.` is not written: each query reads one table). */
export const STORED_MESSAGE_COLUMNS =
  'id, session_id, role, content, content_parts, tool_calls, tool_call_id, name, timestamp, token_count, retrieval'

export function decodeStoredMessage(row: StoredMessageRow): StoredMessage {
  const stored = {
    ...decodeMessage(row),
    id: row.id,
    sessionId: row.session_id,
    timestamp: row.timestamp,
    tokenCount: row.token_count,
  } as StoredMessage
  if (Number(row.retrieval) === 1) stored.retrieval = true
  return stored
}
