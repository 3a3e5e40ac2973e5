import type { Statement } from '../driver.ts'
import { EngramError, isConstraintError } from '../errors.ts'
import { toSearchText } from '../search/cjk.ts'
import type { ImportSessionInput, ImportSessionResult, MessageInput, Session } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { encodeMessage, MESSAGE_COLUMNS } from './message-codec.ts'
import { getSession, PARENT_OF_SAME_USER, parentOfSameUser } from './sessions.ts'
import { modelCallStatement } from './usage.ts'

const action = 'Importing a session'

// The message with its writer's ref (null when it has none): appendMessagesOnce finds it again by it.
const INSERT_IMPORTED_MESSAGE = `INSERT INTO messages (session_id, ref, ${MESSAGE_COLUMNS})
  SELECT ?, ?, ${MESSAGE_COLUMNS.split(',')
    .map(() => '?')
    .join(', ')} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)`

/** The refs of the messages (null where none), refused when one is malformed or given twice. */
function messageRefs(messages: readonly unknown[]): (string | null)[] {
  const seen = new Set<string>()
  return messages.map((message, i) => {
    const ref = (message as { ref?: unknown } | null)?.ref
    if (ref === undefined || ref === null) return null
    const checked = args.checkMessageRef(ref, i)
    if (seen.has(checked))
      throw new EngramError(
        'INVALID_ARGUMENT',
        `${action}: message ${i + 1} has the ref ${JSON.stringify(checked)} of an earlier message. Refs are unique within a session.`,
      )
    seen.add(checked)
    return checked
  })
}

// The n-th message of the session (0-based): the imported messages are the session's only ones.
const NTH_MESSAGE = '(SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT 1 OFFSET ?)'
const nth = (sessionId: string, index: number | null | undefined) =>
  index === null || index === undefined
    ? { sql: 'NULL', params: [] }
    : { sql: NTH_MESSAGE, params: [sessionId, index] }

/**
 * Writes a whole session (as exported elsewhere) in one transaction: the session row with its own id,
 * times and end, its messages, one model_calls row per usage group (carrying its call count) and its
 * episodes. A session already present is left as it is and nothing is written (`created: false`), so an
 * import can be run again. A parent must exist for the same user (`SESSION_NOT_FOUND`, nothing written).
 */
export async function importSession(
  ctx: StoreContext,
  input: ImportSessionInput,
): Promise<ImportSessionResult> {
  const { session, messages, usage, modelCalls, episodes } = parse(args.importSession, input, action)
  if (modelCalls !== undefined && usage.length > 0)
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${action}: give the usage as totals (usage) or as model calls (modelCalls), not both.`,
    )
  const existing = await getSession(ctx, session.id)
  if (existing) return { created: false, session: existing, messages: 0 }
  const now = Date.now()
  const encoded = messages.map((message) =>
    encodeMessage(message as MessageInput, now, ctx.dialect.messageIndex),
  )
  const refs = messageRefs(messages)
  const calls =
    modelCalls ?? usage.map((group) => ({ ...group, latencyMs: null, createdAt: session.startedAt }))
  for (const [i, episode] of episodes.entries()) {
    for (const index of [episode.firstMessageIndex, episode.lastMessageIndex]) {
      if (index !== null && index !== undefined && index >= encoded.length) {
        throw new EngramError(
          'INVALID_ARGUMENT',
          `${action}: episode ${i + 1} points at message ${index}, but the session has ${encoded.length}. Give positions in messages (0-based).`,
        )
      }
    }
  }
  const sum = (pick: (call: (typeof calls)[number]) => number) => calls.reduce((n, c) => n + pick(c), 0)
  const parent = session.parentSessionId ?? null
  const userId = session.userId ?? null
  const id = session.id
  const statements: Statement[] = [
    {
      sql: `INSERT INTO sessions (id, source, user_id, model, title, system_prompt, model_config, parent_session_id,
          started_at, ended_at, end_reason, input_tokens, output_tokens, cost_usd)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ${PARENT_OF_SAME_USER}`,
      params: [
        id,
        session.source,
        userId,
        session.model ?? null,
        session.title ?? null,
        session.systemPrompt ?? null,
        args.modelConfigText(session.modelConfig),
        parent,
        session.startedAt,
        session.endedAt ?? null,
        session.endedAt === null || session.endedAt === undefined ? null : (session.endReason ?? 'ended'),
        sum((g) => g.inputTokens),
        sum((g) => g.outputTokens),
        sum((g) => g.costUsd),
        ...parentOfSameUser(parent, userId),
      ],
    },
    ...encoded.map((e, i) => ({
      sql: INSERT_IMPORTED_MESSAGE,
      params: [id, refs[i] ?? null, ...e.values, id],
    })),
    ...calls.map((call) => modelCallStatement(id, call)),
    ...episodes.map((episode) => {
      const first = nth(id, episode.firstMessageIndex)
      const last = nth(id, episode.lastMessageIndex)
      return {
        sql: `INSERT INTO episodes (session_id, summary, content, importance, token_count, created_at,
            last_hit_at, hit_count, first_message_id, last_message_id, search_text)
          SELECT ?, ?, ?, ?, ?, ?, ?, ?, ${first.sql}, ${last.sql}, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)`,
        params: [
          id,
          episode.summary,
          episode.content ?? null,
          episode.importance,
          episode.tokenCount,
          episode.createdAt ?? now,
          episode.lastHitAt ?? null,
          episode.hitCount,
          ...first.params,
          ...last.params,
          toSearchText(episode.summary),
          id,
        ],
      }
    }),
  ]
  let results: Awaited<ReturnType<StoreContext['write']>>
  try {
    results = await ctx.write(statements, action)
  } catch (error) {
    // Written by someone else between the check and the write: theirs stands, as for any present session.
    const raced = isConstraintError((error as EngramError).cause)
    const present = raced ? await getSession(ctx, id) : null
    if (present) return { created: false, session: present, messages: 0 }
    throw error
  }
  // Without its session row every other statement matched nothing: nothing was written.
  if (results[0]?.changes === 0) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `${action}: the parent session ${JSON.stringify(parent)} does not exist for ${userId === null ? 'sessions without a user' : `user ${JSON.stringify(userId)}`}. Import the parent first, or import without parentSessionId.`,
    )
  }
  await ctx.appended(encoded)
  return { created: true, session: (await getSession(ctx, id)) as Session, messages: encoded.length }
}
