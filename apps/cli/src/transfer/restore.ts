import {
  EngramError,
  type ExportedMessage,
  type ImportSessionInput,
  type MessageInput,
  type Store,
} from '@engram/core'
import type { TransferProgress } from '../progress.ts'
import type { ExportedSession } from './document.ts'

export interface RestoreResult {
  /** Sessions created by this run. */
  imported: number
  /** Sessions that were already in the store (a second run of the same import skips them all). */
  skipped: number
  messages: number
  warnings: string[]
}

function messageInput(message: ExportedMessage): MessageInput & { ref?: string } {
  const input: MessageInput & { ref?: string } = {
    role: message.role,
    content: message.content,
    timestamp: message.timestamp,
  }
  if (message.tool_calls) input.tool_calls = message.tool_calls
  if (message.tool_call_id !== undefined) input.tool_call_id = message.tool_call_id
  if (message.name !== undefined) input.name = message.name
  if (message.tokenCount !== null && message.tokenCount !== undefined) input.tokenCount = message.tokenCount
  if (message.ref !== undefined) input.ref = message.ref
  return input
}

/** What store.importSession takes for an exported session whose parent is `parent` (null: none). */
function importInput(
  { session, messages, episodes, usage, modelCalls }: ExportedSession,
  parent: string | null,
): ImportSessionInput {
  // Episodes point at messages by id; in the store they get new ids, so they are given by position.
  const position = new Map(messages.map((m, i) => [m.id, i]))
  return {
    session: {
      id: session.id,
      source: session.source,
      userId: session.userId,
      model: session.model,
      title: session.title,
      systemPrompt: session.systemPrompt,
      // absent from files written before sessions recorded their model settings
      modelConfig: session.modelConfig ?? null,
      parentSessionId: parent,
      startedAt: session.startedAt,
      endedAt: session.endedAt,
      endReason: session.endReason,
    },
    messages: messages.map(messageInput),
    // Files of older versions carry only the totals; the calls themselves, when present, are exact.
    ...(modelCalls ? { modelCalls } : { usage }),
    episodes: episodes.map((episode) => ({
      summary: episode.summary,
      content: episode.content,
      importance: episode.importance,
      tokenCount: episode.tokenCount,
      createdAt: episode.createdAt,
      lastHitAt: episode.lastHitAt,
      hitCount: episode.hitCount,
      firstMessageIndex: position.get(episode.firstMessageId ?? -1) ?? null,
      lastMessageIndex: position.get(episode.lastMessageId ?? -1) ?? null,
    })),
  }
}

/**
 * The session's parent as the record gives it: an id, or null for a session that continues none. A
 * record without the field (written by hand or by another tool) is refused by name: the parent decides
 * where the session sits in its chain, so it is never guessed.
 */
function parentOf(session: ExportedSession['session']): string | null {
  const parent = (session as { parentSessionId?: unknown }).parentSessionId
  if (parent === null || typeof parent === 'string') return parent
  throw new EngramError(
    'INVALID_ARGUMENT',
    `The record of session ${JSON.stringify(String(session?.id))} has ${parent === undefined ? 'no parentSessionId' : `parentSessionId ${JSON.stringify(parent)}`}: it must be the id of the session it continues, or null when it continues none (as \`engram export\` writes it). Nothing of that session was written; the sessions before it are written whole.`,
  )
}

/** An import stopped by one session: which one, and that the sessions before it are in whole. */
function stoppedAt(id: string, result: RestoreResult, error: unknown): unknown {
  if (!(error instanceof EngramError)) return error
  return new EngramError(
    error.code,
    `Session ${id} could not be written, nothing of it was: ${error.message} The ${result.imported} session(s) before it are written whole; run the same command again once it is fixed, they are skipped.`,
    { cause: error },
  )
}

/**
 * Writes exported sessions into the store in the order given (parents first, as exports are written),
 * keeping their ids and times: each session whole, in one transaction (store.importSession), so a run cut
 * short leaves whole sessions and the next run adds the rest. A session already in the store is skipped;
 * a parent that is neither earlier in the input nor in the store is dropped with a warning. Reads one
 * session at a time from `sessions`, so an import streams.
 */
export async function restoreSessions(
  store: Store,
  sessions: Iterable<ExportedSession> | AsyncIterable<ExportedSession>,
  progress: TransferProgress,
): Promise<RestoreResult> {
  const result: RestoreResult = { imported: 0, skipped: 0, messages: 0, warnings: [] }
  for await (const exported of sessions) {
    const { session, messages } = exported
    const parent = parentOf(session)
    const parentKnown = parent !== null && (await store.getSession(parent)) !== null
    if (parent !== null && !parentKnown) {
      result.warnings.push(
        `session ${session.id}: its parent ${parent} is not in the file or the store; imported without it`,
      )
    }
    const done = await store
      .importSession(importInput(exported, parentKnown ? parent : null))
      .catch((error: unknown) => {
        throw stoppedAt(session.id, result, error)
      })
    if (done.created) result.imported++
    else result.skipped++
    result.messages += done.messages
    progress.session(messages.length)
  }
  return result
}
