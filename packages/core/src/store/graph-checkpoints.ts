import type { SqlValue, Statement } from '../driver.ts'
import { EngramError } from '../errors.ts'
import type { StoreContext } from './context.ts'

/**
 * LangGraph's checkpoints on the store's tables (schema/graph.ts), for `@engram/langgraph`'s EngramSaver.
 * Rows only: what a body, a value or a write holds is the saver's serializer's business (a type and
 * bytes), so the store never decodes them. Every write is one transaction, made of upserts, so a step
 * written twice (a retry, two processes resuming one thread) leaves one copy.
 */

/** One channel's value at one version; `value` null with type `empty` for a channel with no value. */
export interface GraphBlob {
  channel: string
  version: string
  type: string
  value: Uint8Array | null
}

/** A pending write: `idx` is the write's index in its task, negative for the special channels. */
export interface GraphWrite {
  taskId: string
  idx: number
  /** The task's path (LangGraph's sort key for a step's writes); `''` when the caller gave none. */
  taskPath: string
  channel: string
  type: string
  value: Uint8Array | null
}

/** Where a checkpoint lives: a thread and a namespace in it (`''` the root graph). */
export interface GraphCheckpointKey {
  threadId: string
  namespace: string
  checkpointId: string
}

export interface GraphCheckpointRow extends GraphCheckpointKey {
  parentId: string | null
  /** The serializer's type of `checkpoint` (the body without channel values). */
  type: string
  checkpoint: Uint8Array
  /** The metadata as JSON text of an object, which `list` filters on (stored with its keys sorted). */
  metadata: string
  createdAt: number
}

export type NewGraphCheckpoint = Omit<GraphCheckpointRow, 'createdAt'>

export interface GraphCheckpointQuery {
  threadId?: string
  namespace?: string
  checkpointId?: string
  /** Only checkpoints whose id sorts before this one. */
  before?: string
  /**
   * Only checkpoints whose metadata has each of these top-level keys equal to the value (as JSON: the same
   * type and value; objects with the same keys and values in any order).
   */
  metadata?: Record<string, unknown>
  /** At most this many, newest id first. */
  limit?: number
  /** Continues a list after the last checkpoint of its previous page (keyset). */
  after?: GraphCheckpointKey
}

/** A JSON value with the keys of every object sorted: equal values have equal text, whatever their key order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  )
}

/** The canonical JSON of a value: what the metadata column stores and its filters compare with. */
const canonicalJson = (value: unknown) => JSON.stringify(sortKeys(value)) ?? 'null'

/** Metadata text as stored: canonical JSON of an object, or INVALID_ARGUMENT naming the problem. */
function canonicalMetadata(text: string): string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Saving a graph checkpoint: its metadata is not JSON (${(cause as Error).message}). Pass the metadata as JSON text of an object.`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      'Saving a graph checkpoint: its metadata must be the JSON of an object. Pass e.g. {"source":"loop","step":1}.',
    )
  }
  return canonicalJson(value)
}

const COLUMNS =
  'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, created_at'

/** A blob column as the drivers return it (Buffer, Uint8Array or ArrayBuffer), as a plain Uint8Array. */
function bytes(value: unknown): Uint8Array | null {
  if (value === null || value === undefined) return null
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  throw new EngramError('DATABASE_ERROR', `A graph blob column held ${typeof value}, not bytes.`)
}

const text = (value: unknown) => String(value)

function decodeCheckpoint(row: Record<string, unknown>): GraphCheckpointRow {
  return {
    threadId: text(row.thread_id),
    namespace: text(row.checkpoint_ns),
    checkpointId: text(row.checkpoint_id),
    parentId: row.parent_checkpoint_id == null ? null : text(row.parent_checkpoint_id),
    type: text(row.type),
    checkpoint: bytes(row.checkpoint) as Uint8Array,
    metadata: text(row.metadata),
    createdAt: Number(row.created_at),
  }
}

function requireText(value: unknown, name: string, action: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${action}: ${name} must be a ${allowEmpty ? '' : 'non-empty '}string (got ${JSON.stringify(value) ?? 'undefined'}). Pass it in config.configurable.${name}.`,
    )
  }
  return value
}

function checkKey(key: GraphCheckpointKey, action: string): void {
  requireText(key.threadId, 'thread_id', action)
  requireText(key.namespace, 'checkpoint_ns', action, true)
  requireText(key.checkpointId, 'checkpoint_id', action)
}

/** Upserts a blob: a (channel, version) is written once; a second writer's copy is the same value. */
const blobStatement = (key: GraphCheckpointKey, blob: GraphBlob): Statement => ({
  sql: `INSERT INTO graph_blobs (thread_id, checkpoint_ns, channel, version, type, value) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING`,
  params: [key.threadId, key.namespace, blob.channel, blob.version, blob.type, blob.value],
})

/** Stores a checkpoint and the values of the channels it changed, in one transaction. */
export async function putCheckpoint(
  ctx: StoreContext,
  checkpoint: NewGraphCheckpoint,
  blobs: readonly GraphBlob[],
): Promise<void> {
  const action = 'Saving a graph checkpoint'
  checkKey(checkpoint, action)
  await ctx.write(
    [
      ...blobs.map((blob) => blobStatement(checkpoint, blob)),
      {
        sql: `INSERT INTO graph_checkpoints (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
            parent_checkpoint_id = excluded.parent_checkpoint_id, type = excluded.type,
            checkpoint = excluded.checkpoint, metadata = excluded.metadata`,
        params: [
          checkpoint.threadId,
          checkpoint.namespace,
          checkpoint.checkpointId,
          checkpoint.parentId,
          checkpoint.type,
          checkpoint.checkpoint,
          canonicalMetadata(checkpoint.metadata),
          Date.now(),
        ],
      },
    ],
    action,
  )
}

/**
 * Stores a task's writes against a checkpoint in one transaction. A regular write (idx ≥ 0) already
 * stored is kept (the first of two retries wins, as LangGraph's savers do); a special one (idx < 0: an
 * error, an interrupt) replaces the stored one.
 */
export async function putWrites(
  ctx: StoreContext,
  key: GraphCheckpointKey,
  writes: readonly GraphWrite[],
): Promise<void> {
  const action = 'Saving graph writes'
  checkKey(key, action)
  if (writes.length === 0) return
  await ctx.write(
    writes.map((write) => {
      requireText(write.taskId, 'task_id', action)
      return {
        sql: `INSERT INTO graph_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, task_path, channel, type, value)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${
            write.idx < 0
              ? 'DO UPDATE SET task_path = excluded.task_path, channel = excluded.channel, type = excluded.type, value = excluded.value'
              : 'DO NOTHING'
          }`,
        params: [
          key.threadId,
          key.namespace,
          key.checkpointId,
          write.taskId,
          write.idx,
          write.taskPath,
          write.channel,
          write.type,
          write.value,
        ],
      }
    }),
    action,
  )
}

/** Checkpoints newest id first, filtered as the query says (see GraphCheckpointQuery). */
export async function listCheckpoints(
  ctx: StoreContext,
  query: GraphCheckpointQuery,
): Promise<GraphCheckpointRow[]> {
  const where: string[] = []
  const params: SqlValue[] = []
  const add = (condition: string, ...values: SqlValue[]) => {
    where.push(condition)
    params.push(...values)
  }
  if (query.threadId !== undefined) add('thread_id = ?', query.threadId)
  if (query.namespace !== undefined) add('checkpoint_ns = ?', query.namespace)
  if (query.checkpointId !== undefined) add('checkpoint_id = ?', query.checkpointId)
  if (query.before !== undefined) add('checkpoint_id < ?', query.before)
  for (const [name, value] of Object.entries(query.metadata ?? {})) {
    const match = ctx.dialect.graphMetadataMatch(name, canonicalJson(value))
    add(match.sql, ...match.params)
  }
  const after = query.after
  if (after !== undefined) {
    add(
      '(checkpoint_id < ? OR (checkpoint_id = ? AND (thread_id < ? OR (thread_id = ? AND checkpoint_ns < ?))))',
      after.checkpointId,
      after.checkpointId,
      after.threadId,
      after.threadId,
      after.namespace,
    )
  }
  const limit = query.limit
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Listing graph checkpoints: limit must be a whole number ≥ 0 (got ${limit}). Pass a count, or none for all.`,
    )
  }
  if (limit === 0) return []
  const rows = await ctx.read(
    {
      sql: `SELECT ${COLUMNS} FROM graph_checkpoints${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}
        ORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC${limit === undefined ? '' : ` LIMIT ${limit}`}`,
      params,
    },
    'Listing graph checkpoints',
  )
  return rows.map(decodeCheckpoint)
}

/** The checkpoint with this id, or the thread's newest in the namespace when `checkpointId` is absent. */
export async function getCheckpoint(
  ctx: StoreContext,
  key: Omit<GraphCheckpointKey, 'checkpointId'> & { checkpointId?: string },
): Promise<GraphCheckpointRow | null> {
  const [row] = await listCheckpoints(ctx, { ...key, limit: 1 })
  return row ?? null
}

/** The stored values of the channels at the versions given (channels without a stored value are absent). */
export async function getBlobs(
  ctx: StoreContext,
  key: Omit<GraphCheckpointKey, 'checkpointId'>,
  versions: Readonly<Record<string, string>>,
): Promise<GraphBlob[]> {
  const wanted = Object.entries(versions)
  if (wanted.length === 0) return []
  const rows = await ctx.read(
    {
      sql: `SELECT channel, version, type, value FROM graph_blobs WHERE thread_id = ? AND checkpoint_ns = ?
        AND (${wanted.map(() => '(channel = ? AND version = ?)').join(' OR ')})`,
      params: [key.threadId, key.namespace, ...wanted.flat()],
    },
    'Reading graph channel values',
  )
  return rows.map((row) => ({
    channel: text(row.channel),
    version: text(row.version),
    type: text(row.type),
    value: bytes(row.value),
  }))
}

/** The writes stored against a checkpoint, in no particular order (LangGraph sorts them its own way). */
export async function getWrites(ctx: StoreContext, key: GraphCheckpointKey): Promise<GraphWrite[]> {
  const rows = await ctx.read(
    {
      sql: `SELECT task_id, idx, task_path, channel, type, value FROM graph_writes
        WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
      params: [key.threadId, key.namespace, key.checkpointId],
    },
    'Reading graph writes',
  )
  return rows.map((row) => ({
    taskId: text(row.task_id),
    idx: Number(row.idx),
    taskPath: text(row.task_path),
    channel: text(row.channel),
    type: text(row.type),
    value: bytes(row.value),
  }))
}

/** Deletes a thread's checkpoints, channel values and writes (every namespace) in one transaction. */
export async function deleteThread(ctx: StoreContext, threadId: string): Promise<void> {
  requireText(threadId, 'thread_id', 'Deleting a graph thread')
  await ctx.write(
    ['graph_writes', 'graph_blobs', 'graph_checkpoints'].map((table) => ({
      sql: `DELETE FROM ${table} WHERE thread_id = ?`,
      params: [threadId],
    })),
    'Deleting a graph thread',
  )
}
