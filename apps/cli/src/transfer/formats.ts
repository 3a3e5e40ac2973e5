import { EngramError, type Episode, type StoredMessage } from '@engram/core'
import { type ExportDocument, type ExportedSession, FORMAT } from './document.ts'

export const FORMATS = ['json', 'jsonl', 'md'] as const
export type Format = (typeof FORMATS)[number]

const invalidFile = (file: string, detail: string) =>
  new EngramError(
    'INVALID_ARGUMENT',
    `${file} is not an Engram export (${detail}). Import a file written by \`engram export\`, or use --from-hermes for a Hermes state.db.`,
  )

// JSON inside an HTML comment must not close it: `-->` becomes `--\u003e`, which JSON.parse reads back. The
// comment must also stay one line for the reader's regex: U+2028/U+2029 (which JSON leaves raw) are escaped.
const commentJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/-->/g, '--\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')

// Visible text outside the fences stays on one line, so that it can never pass for a data comment.
const oneLine = (text: string) => text.replace(/[\r\n\u2028\u2029]+/g, ' ')

function fenceFor(text: string): string {
  let longest = 0
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length)
  return '`'.repeat(Math.max(3, longest + 1))
}

function markdownMessage(message: StoredMessage): string[] {
  const { content, ...meta } = message
  const when = new Date(message.timestamp).toISOString()
  const lines = [`### ${message.role}${message.name ? ` (${oneLine(message.name)})` : ''} · ${when}`]
  const text = typeof content === 'string' ? content : null
  lines.push(`<!-- engram:message ${commentJson(text === null ? { ...meta, content } : meta)} -->`)
  for (const call of message.tool_calls ?? []) lines.push(`- tool call \`${oneLine(call.function.name)}\``)
  if (text !== null) {
    const fence = fenceFor(text)
    lines.push(`${fence}text`, text, fence)
  }
  lines.push('')
  return lines
}

function markdownSession({ session, messages, ...rest }: ExportedSession): string[] {
  return [
    `## Session ${oneLine(session.id)}${session.title ? `: ${oneLine(session.title)}` : ''}`,
    `<!-- engram:session ${commentJson({ session, ...rest })} -->`,
    '',
    `- source: ${oneLine(session.source)}, model: ${oneLine(session.model ?? '—')}, started ${new Date(session.startedAt).toISOString()}` +
      (session.parentSessionId ? `, continues ${oneLine(session.parentSessionId)}` : ''),
    '',
    ...messages.flatMap(markdownMessage),
  ]
}

/** The document as text in `format`; every format reads back into an equal document. */
export function serialize(document: ExportDocument, format: Format): string {
  const header = { format: document.format, version: document.version, exportedAt: document.exportedAt }
  if (format === 'json') return `${JSON.stringify(document, null, 2)}\n`
  if (format === 'jsonl') {
    const lines = [jsonlHeader(document.exportedAt), ...document.sessions.flatMap(jsonlLines)]
    return `${[...lines, jsonlEnd(document.sessions.length)].join('\n')}\n`
  }
  return [
    `<!-- ${commentJson(header)} -->`,
    `# Engram transcript`,
    '',
    ...document.sessions.flatMap(markdownSession),
  ].join('\n')
}

/**
 * The first line of a JSONL export. `end: true` says an end record closes the file, so a file cut short
 * (a pipe that broke, a full disk) is recognised instead of importing its last session in part.
 */
export const jsonlHeader = (exportedAt: number) =>
  JSON.stringify({ format: FORMAT, version: 1, exportedAt, end: true })

/** The last line of a JSONL export: how many sessions it holds. */
export const jsonlEnd = (sessions: number) => JSON.stringify({ type: 'end', sessions })

/** The JSONL lines of one session: its record (with usage and model calls), then its messages and episodes. */
export function jsonlLines({ session, messages, episodes, usage, modelCalls }: ExportedSession): string[] {
  return [
    JSON.stringify({ type: 'session', session, usage, ...(modelCalls ? { modelCalls } : {}) }),
    ...messages.map((message) => JSON.stringify({ type: 'message', message })),
    ...episodes.map((episode) => JSON.stringify({ type: 'episode', episode })),
  ]
}

/**
 * Reads a JSONL export line by line into whole sessions, for a file of any size: `line` hands back the
 * session before when a new one starts, `finish` the last one, once the file is known to be whole.
 */
export class JsonlReader {
  private current: ExportedSession | undefined
  private sessions = 0
  private ended = false
  private expectsEnd = false

  constructor(private readonly file: string) {}

  /** Takes line number `n` (1-based); returns the session it completed, if any. */
  line(text: string, n: number): ExportedSession | undefined {
    if (text.trim() === '') return undefined
    let record: Record<string, unknown>
    try {
      record = JSON.parse(text)
    } catch (cause) {
      throw invalidFile(this.file, `line ${n}: ${(cause as Error).message.split('\n')[0]}`)
    }
    if (n === 1) {
      if (record?.format !== FORMAT || record.version !== 1 || 'sessions' in record)
        throw invalidFile(this.file, `no "${FORMAT}" version 1 header`)
      this.expectsEnd = record.end === true
      return undefined
    }
    if (this.ended) throw invalidFile(this.file, `line ${n} comes after the end record`)
    const current = this.current
    if (record.type === 'session') {
      const { session, usage, modelCalls } = record as Partial<ExportedSession>
      this.current = {
        session: session as ExportedSession['session'],
        usage: usage ?? [],
        ...(modelCalls ? { modelCalls } : {}),
        messages: [],
        episodes: [],
      }
      this.sessions++
      return current
    }
    if (record.type === 'message' && current) current.messages.push(record.message as StoredMessage)
    else if (record.type === 'episode' && current) current.episodes.push(record.episode as Episode)
    else if (record.type === 'end') {
      this.ended = true
      if (record.sessions !== this.sessions)
        throw invalidFile(
          this.file,
          `its end record counts ${record.sessions} sessions, but it holds ${this.sessions}`,
        )
      this.current = undefined
      return current
    } else throw invalidFile(this.file, `line ${n} is not a session, message or episode record`)
    return undefined
  }

  /** The last session, once the whole file was read; refused when the file was cut short. */
  finish(): ExportedSession | undefined {
    if (this.expectsEnd && !this.ended)
      throw invalidFile(
        this.file,
        'it ends before its end record: it was cut short. Its last session was not imported; export it again',
      )
    return this.current
  }
}

function parseJsonl(text: string, file: string): ExportDocument {
  const reader = new JsonlReader(file)
  const lines = text.split('\n')
  const sessions: ExportedSession[] = []
  for (const [index, line] of lines.entries()) {
    const done = reader.line(line, index + 1)
    if (done) sessions.push(done)
  }
  const last = reader.finish()
  if (last) sessions.push(last)
  const { format, version, exportedAt } = JSON.parse(lines[0] ?? '{}')
  return { format, version, exportedAt, sessions }
}

const COMMENT = /^<!-- (engram:session |engram:message )?(.*) -->$/

function parseMarkdown(text: string): ExportDocument {
  const lines = text.split('\n')
  const sessions: ExportedSession[] = []
  let header: Partial<ExportDocument> = {}
  for (let i = 0; i < lines.length; i++) {
    const match = COMMENT.exec(lines[i] as string)
    if (!match) continue
    const value = JSON.parse(match[2] as string)
    if (match[1] === undefined) header = value
    else if (match[1] === 'engram:session ') sessions.push({ ...value, messages: [] })
    else {
      const message = value as StoredMessage
      if (!('content' in value)) {
        while (i + 1 < lines.length && !/^`{3,}text$/.test(lines[i + 1] as string)) i++
        const fence = (lines[++i] as string).slice(0, -'text'.length)
        const body: string[] = []
        while (i + 1 < lines.length && lines[i + 1] !== fence) body.push(lines[++i] as string)
        i++
        message.content = body.join('\n')
      }
      sessions.at(-1)?.messages.push(message)
    }
  }
  return { ...(header as ExportDocument), sessions }
}

/** Whether this first line of a file is the header of a JSONL export. */
export function isJsonlHeader(line: string): boolean {
  try {
    const value = JSON.parse(line)
    return value?.format === FORMAT && !('sessions' in value)
  } catch {
    return false
  }
}

/** Reads an export in any of the three formats (detected from the content, not the name). */
export function parseExport(text: string, file: string): ExportDocument {
  let document: ExportDocument
  try {
    const trimmed = text.trimStart()
    if (trimmed.startsWith('<!--')) document = parseMarkdown(text)
    else if (isJsonlHeader(trimmed.slice(0, trimmed.indexOf('\n') >>> 0)))
      document = parseJsonl(trimmed, file)
    else document = JSON.parse(text)
  } catch (cause) {
    if (cause instanceof EngramError) throw cause
    throw invalidFile(file, (cause as Error).message.split('\n')[0] as string)
  }
  if (document?.format !== FORMAT || document.version !== 1 || !Array.isArray(document.sessions)) {
    throw invalidFile(file, `no "${FORMAT}" version 1 header`)
  }
  return document
}
