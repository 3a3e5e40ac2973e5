import { clipToTokens, type TokenCounter, textOf } from '@engram/compressor'
import type { Session, StoredMessage } from '@engram/core'

/** Tokens of a session title shown in a line naming the session. */
const TITLE_TOKENS = 20

/** A time as the session tools show it: `2026-03-01 09:00 UTC`. */
export const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** Text on one line, runs of whitespace as one space. */
export const flat = (text: string) => text.replace(/\s+/g, ' ').trim()

/** The text of a message on one line, with the names of the tools it called. */
export function messageText(message: StoredMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => `[called ${call.function.name}]`)
  return flat([textOf(message), ...calls].filter(Boolean).join(' ')) || '(empty)'
}

/** A session as the session tools name it: what a client needs to refer to it, its title clipped. */
export interface SessionLine {
  id: string
  title: string | null
  source: string
  /** Epoch milliseconds. */
  startedAt: number
  messageCount: number
}

/** The fields of a session a line names, the title on one line and clipped to 20 tokens. */
export function sessionLine(session: Session, counter: TokenCounter): SessionLine {
  return {
    id: session.id,
    title: session.title ? clipToTokens(counter, flat(session.title), TITLE_TOKENS) : null,
    source: session.source,
    startedAt: session.startedAt,
    messageCount: session.messageCount,
  }
}

/** One line naming a session: id, start, source, title, message count. */
export function describeSession(session: SessionLine): string {
  const title = session.title ? ` · ${JSON.stringify(session.title)}` : ''
  return `${session.id} · ${when(session.startedAt)} · ${session.source}${title} · ${session.messageCount} messages`
}
