import type { QueryResult, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { toIndexText } from '../search/cjk.ts'
import type { Episode, NewEpisode } from '../types.ts'
import type { StoreContext } from './context.ts'

interface EpisodeRow {
  id: number
  session_id: string
  summary: string
  content: string | null
  importance: number
  token_count: number
  created_at: number
  last_hit_at: number | null
  hit_count: number
  first_message_id: number | null
  last_message_id: number | null
}

const EPISODE_COLUMNS =
  'id, session_id, summary, content, importance, token_count, created_at, last_hit_at, hit_count, first_message_id, last_message_id'

function decodeEpisode(row: EpisodeRow): Episode {
  return {
    id: row.id,
    sessionId: row.session_id,
    summary: row.summary,
    content: row.content,
    importance: row.importance,
    tokenCount: row.token_count,
    createdAt: row.created_at,
    lastHitAt: row.last_hit_at,
    hitCount: row.hit_count,
    firstMessageId: row.first_message_id,
    lastMessageId: row.last_message_id,
  }
}

/** The INSERT of one episode; it writes nothing when the session does not exist. */
export function insertEpisode(input: NewEpisode): Statement {
  if (typeof input?.summary !== 'string' || input.summary.trim() === '') {
    throw new EngramError('INVALID_ARGUMENT', 'An episode needs a non-empty summary.')
  }
  const importance = input.importance ?? 5
  if (!Number.isInteger(importance) || importance < 0 || importance > 10) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Episode importance must be an integer from 0 to 10 (got ${importance}).`,
    )
  }
  return {
    sql: `INSERT INTO episodes (session_id, summary, content, importance, token_count, created_at, first_message_id,
        last_message_id, search_text)
      SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
      RETURNING ${EPISODE_COLUMNS}`,
    params: [
      input.sessionId,
      input.summary,
      input.content ?? null,
      importance,
      input.tokenCount ?? 0,
      Date.now(),
      input.firstMessageId ?? null,
      input.lastMessageId ?? null,
      toIndexText(input.summary),
      input.sessionId,
    ],
  }
}

/** The episode a RETURNING insert produced, or null when its session did not exist. */
export function insertedEpisode(result: QueryResult | undefined): Episode | null {
  const row = result?.rows[0] as EpisodeRow | undefined
  return row ? decodeEpisode(row) : null
}

export async function addEpisode(ctx: StoreContext, input: NewEpisode): Promise<Episode> {
  const [result] = await ctx.write([insertEpisode(input)], 'Adding an episode')
  const episode = insertedEpisode(result)
  if (!episode) {
    throw new EngramError(
      'SESSION_NOT_FOUND',
      `No session with id ${JSON.stringify(input.sessionId)} for the episode.`,
    )
  }
  return episode
}

export async function getEpisodes(ctx: StoreContext, sessionId: string): Promise<Episode[]> {
  const rows = await ctx.read<EpisodeRow>(
    { sql: `SELECT ${EPISODE_COLUMNS} FROM episodes WHERE session_id = ? ORDER BY id`, params: [sessionId] },
    'Reading episodes',
  )
  return rows.map(decodeEpisode)
}

export interface PruneEpisodesOptions {
  /** Keep at most this many episodes. */
  maxCount?: number
  /** Keep episodes whose token counts add up to at most this. */
  maxTokens?: number
}

// Which episodes go first: low importance, then long unused (never hit counts from creation).
const KEEP_ORDER = 'importance DESC, coalesce(last_hit_at, created_at) DESC, id DESC'

/** Evicts the lowest-importance, least recently hit episodes until both limits hold; returns how many went. */
export async function pruneEpisodes(ctx: StoreContext, options: PruneEpisodesOptions): Promise<number> {
  const { maxCount, maxTokens } = options ?? {}
  for (const [name, value] of [
    ['maxCount', maxCount],
    ['maxTokens', maxTokens],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `${name} must be a whole number of at least 0 (got ${value}).`,
      )
    }
  }
  if (maxCount === undefined && maxTokens === undefined) {
    throw new EngramError('INVALID_ARGUMENT', 'pruneEpisodes needs maxCount, maxTokens or both.')
  }
  const [result] = await ctx.write(
    [
      {
        sql: `DELETE FROM episodes WHERE id IN (
            SELECT id FROM (
              SELECT id, row_number() OVER keep AS position, sum(token_count) OVER keep AS running_tokens
              FROM episodes WINDOW keep AS (ORDER BY ${KEEP_ORDER})
            ) WHERE position > ? OR running_tokens > ?
          )`,
        params: [maxCount ?? Number.MAX_SAFE_INTEGER, maxTokens ?? Number.MAX_SAFE_INTEGER],
      },
    ],
    'Pruning episodes',
  )
  return result?.changes ?? 0
}
