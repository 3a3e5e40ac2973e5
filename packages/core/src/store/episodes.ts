import { eq, getTableColumns } from 'drizzle-orm'
import type { QueryResult, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import { episodes } from '../schema/episodes.ts'
import { toSearchText } from '../search/cjk.ts'
import type { Episode, NewEpisode, PruneEpisodesOptions } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'
import { rowCodec, type SqlRow } from './rows.ts'

const codec = rowCodec<Episode, 'searchText'>(episodes, ['searchText'])
const EPISODE_COLUMNS = codec.columns()
const decodeEpisode = codec.decode

/** The INSERT of one episode; it writes nothing when the session does not exist. */
export function insertEpisode(input: NewEpisode): Statement {
  const episode = parse(args.newEpisode, input, 'Adding an episode')
  return {
    sql: `INSERT INTO episodes (session_id, summary, content, importance, token_count, created_at, first_message_id,
        last_message_id, search_text)
      SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
      RETURNING ${EPISODE_COLUMNS}`,
    params: [
      episode.sessionId,
      episode.summary,
      episode.content ?? null,
      episode.importance,
      episode.tokenCount,
      Date.now(),
      episode.firstMessageId ?? null,
      episode.lastMessageId ?? null,
      toSearchText(episode.summary),
      episode.sessionId,
    ],
  }
}

/** The episode a RETURNING insert produced, or null when its session did not exist. */
export function insertedEpisode(result: QueryResult | undefined): Episode | null {
  const row = result?.rows[0] as SqlRow | undefined
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

const { searchText: _, ...episodeColumns } = getTableColumns(episodes)

export async function getEpisodes(ctx: StoreContext, sessionId: string): Promise<Episode[]> {
  const id = args.checkSessionId(sessionId, 'Reading episodes')
  return ctx.query('Reading episodes', (db) =>
    db.select(episodeColumns).from(episodes).where(eq(episodes.sessionId, id)).orderBy(episodes.id),
  )
}

// Which episodes go first: low importance, then long unused (never hit counts from creation).
const KEEP_ORDER = 'importance DESC, coalesce(last_hit_at, created_at) DESC, id DESC'

/** Evicts the lowest-importance, least recently hit episodes until both limits hold; returns how many went. */
export async function pruneEpisodes(ctx: StoreContext, options: PruneEpisodesOptions): Promise<number> {
  const { maxCount, maxTokens } = parse(args.pruneEpisodes, options, 'Pruning episodes')
  const [result] = await ctx.write(
    [
      {
        sql: `DELETE FROM episodes WHERE id IN (
            SELECT id FROM (
              SELECT id, row_number() OVER keep AS position, sum(token_count) OVER keep AS running_tokens
              FROM episodes WINDOW keep AS (ORDER BY ${KEEP_ORDER})
            ) ranked WHERE position > ? OR running_tokens > ?
          )`,
        params: [maxCount ?? Number.MAX_SAFE_INTEGER, maxTokens ?? Number.MAX_SAFE_INTEGER],
      },
    ],
    'Pruning episodes',
  )
  return result?.changes ?? 0
}

/**
 * Counts a search's hits on episodes, best-effort: one attempt that never waits for a lock, so a busy or
 * read-only database skips the count and the search still answers at once.
 */
export function countEpisodeHits(ctx: StoreContext, episodeIds: readonly number[]): Promise<void> {
  if (episodeIds.length === 0) return Promise.resolve()
  return ctx.writeIfFree({
    sql: `UPDATE episodes SET hit_count = hit_count + 1, last_hit_at = ? WHERE id IN (${episodeIds.map(() => '?').join(', ')})`,
    params: [Date.now(), ...episodeIds],
  })
}
