import { asc, eq } from 'drizzle-orm'
import { modelCalls } from '../schema/model-calls.ts'
import type { ExportedMessage, ModelCall, SessionExport } from '../types.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { getEpisodes } from './episodes.ts'
import { decodeStoredMessage, STORED_MESSAGE_COLUMNS, type StoredMessageRow } from './message-codec.ts'
import { getSession } from './sessions.ts'

const action = 'Exporting a session'

const modelCallColumns = {
  purpose: modelCalls.purpose,
  model: modelCalls.model,
  calls: modelCalls.calls,
  inputTokens: modelCalls.inputTokens,
  outputTokens: modelCalls.outputTokens,
  cacheReadTokens: modelCalls.cacheReadTokens,
  cacheWriteTokens: modelCalls.cacheWriteTokens,
  costUsd: modelCalls.costUsd,
  latencyMs: modelCalls.latencyMs,
  createdAt: modelCalls.createdAt,
}

/**
 * Everything a session holds, as importSession takes it back: the row, every message with its writer's
 * `ref`, every episode with its hit statistics and every model call as recorded. Four indexed reads
 * (the session's rows only), so a whole store is exported in time linear in its size.
 */
export async function exportSession(ctx: StoreContext, id: string): Promise<SessionExport | null> {
  const sessionId = args.checkSessionId(id, action)
  const session = await getSession(ctx, sessionId)
  if (!session) return null
  const rows = await ctx.read<StoredMessageRow & { ref: string | null }>(
    {
      sql: `SELECT ${STORED_MESSAGE_COLUMNS}, ref
        FROM messages WHERE session_id = ? ORDER BY id`,
      params: [sessionId],
    },
    action,
  )
  const messages = rows.map((row) => {
    const message: ExportedMessage = decodeStoredMessage(row)
    if (row.ref !== null) message.ref = row.ref
    return message
  })
  const calls: ModelCall[] = await ctx.query(action, (db) =>
    db
      .select(modelCallColumns)
      .from(modelCalls)
      .where(eq(modelCalls.sessionId, sessionId))
      .orderBy(asc(modelCalls.id)),
  )
  return { session, messages, episodes: await getEpisodes(ctx, sessionId), modelCalls: calls }
}
