import {
  EngramError,
  type GraphBlob,
  type GraphCheckpointKey,
  type GraphCheckpointRow,
  type GraphWrite,
  type Store,
} from '@engram/core'
import type { RunnableConfig } from '@langchain/core/runnables'
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint'
import { ConversationMirror, type ConversationOptions } from './conversation.ts'

export interface EngramSaverOptions {
  /** The Engram store the checkpoints live in (any engine); the saver never closes it. */
  store: Store
  /** How checkpoints, channel values and writes become bytes (default LangGraph's JsonPlusSerializer). */
  serde?: SerializerProtocol
  /**
   * Mirror each thread's messages channel into an Engram session (one per thread, each message once), so
   * search, `session_search`, the MCP server and `engram ui` see the conversation. `true` for the defaults.
   */
  conversation?: ConversationOptions | boolean
}

/** A checkpoint is listed in pages of this many rows, so a long thread never sits in memory whole. */
const LIST_PAGE = 100

/** The type recorded for a channel that had no value at its new version. */
const EMPTY = 'empty'

const text = new TextDecoder()

function missing(field: 'thread_id' | 'checkpoint_id', action: string): EngramError {
  return new EngramError(
    'INVALID_ARGUMENT',
    `${action}: the config has no configurable.${field}. Pass it, e.g. graph.invoke(input, { configurable: { thread_id: 'thread-1' } }).`,
  )
}

/** What a config names: its thread, namespace (default the root, `''`) and checkpoint. */
function configKey(config: RunnableConfig) {
  const configurable = config.configurable ?? {}
  return {
    threadId: configurable.thread_id as string | undefined,
    namespace: (configurable.checkpoint_ns as string | undefined) ?? '',
    checkpointId: getCheckpointId(config) || undefined,
  }
}

const configOf = (key: GraphCheckpointKey): RunnableConfig => ({
  configurable: { thread_id: key.threadId, checkpoint_ns: key.namespace, checkpoint_id: key.checkpointId },
})

/**
 * A LangGraph checkpointer on an Engram store: every step of a graph is saved so a thread can resume,
 * rewind and fork, on SQLite (better-sqlite3, libSQL) or PostgreSQL (pg, PGlite).
 *
 * A checkpoint is stored without its channel values; each channel's value is stored once per version
 * (`store.graph.checkpoints`), so a step writes only the channels it changed. Versions carry a random
 * fraction (see getNextVersion), so two forks of one thread never share a version of a
 * channel. Each `put` and `putWrites` is one transaction of upserts: several processes resuming one thread
 * store one copy of what they both write.
 */
export class EngramSaver extends BaseCheckpointSaver {
  readonly store: Store
  private readonly conversation: ConversationMirror | undefined

  constructor(options: EngramSaverOptions) {
    super(options.serde)
    if (options.store === undefined) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        'EngramSaver needs a store: new EngramSaver({ store: await openStore({ url }) }).',
      )
    }
    this.store = options.store
    const conversation = options.conversation
    if (conversation) {
      this.conversation = new ConversationMirror(this.store, conversation === true ? {} : conversation)
    }
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, namespace, checkpointId } = configKey(config)
    if (threadId === undefined) return undefined
    const row = await this.store.graph.checkpoints.get({ threadId, namespace, checkpointId })
    return row === null ? undefined : this.tuple(row)
  }

  override async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const configurable = config.configurable ?? {}
    const metadata = Object.fromEntries(
      Object.entries(options.filter ?? {}).filter(([, value]) => value !== undefined),
    )
    let remaining = options.limit ?? Number.POSITIVE_INFINITY
    let after: GraphCheckpointKey | undefined
    while (remaining > 0) {
      const rows = await this.store.graph.checkpoints.list({
        threadId: configurable.thread_id,
        namespace: configurable.checkpoint_ns,
        checkpointId: configurable.checkpoint_id || undefined,
        before: options.before?.configurable?.checkpoint_id,
        metadata,
        limit: Math.min(remaining, LIST_PAGE),
        after,
      })
      for (const row of rows) yield await this.tuple(row)
      if (rows.length < LIST_PAGE) return
      remaining -= rows.length
      after = rows.at(-1)
    }
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const { threadId, namespace, checkpointId: parentId } = configKey(config)
    if (threadId === undefined) throw missing('thread_id', 'Saving a checkpoint')
    const { channel_values: values, ...body } = copyCheckpoint(checkpoint)
    const blobs = await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]): Promise<GraphBlob> => {
        if (!(channel in values)) return { channel, version: String(version), type: EMPTY, value: null }
        const [type, value] = await this.serde.dumpsTyped(values[channel])
        return { channel, version: String(version), type, value }
      }),
    )
    const [type, bytes] = await this.serde.dumpsTyped({ ...body, channel_values: {} })
    const key = { threadId, namespace, checkpointId: checkpoint.id }
    await this.store.graph.checkpoints.put(
      {
        ...key,
        parentId: parentId ?? null,
        type,
        checkpoint: bytes,
        metadata: await this.metadataText(metadata),
      },
      blobs,
    )
    // After the checkpoint's own transaction: a crash between the two leaves messages the next step writes
    // (each once, by its id); the root graph's channel only, when this step changed it.
    const channel = this.conversation?.channel
    if (channel !== undefined && namespace === '' && channel in newVersions) {
      await this.conversation?.mirror(threadId, values[channel])
    }
    return configOf(key)
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const { threadId, namespace, checkpointId } = configKey(config)
    if (threadId === undefined) throw missing('thread_id', 'Saving pending writes')
    if (checkpointId === undefined) throw missing('checkpoint_id', 'Saving pending writes')
    const rows = await Promise.all(
      writes.map(async ([channel, value], index): Promise<GraphWrite> => {
        const [type, bytes] = await this.serde.dumpsTyped(value)
        return {
          taskId,
          idx: WRITES_IDX_MAP[channel] ?? index,
          taskPath: taskPath ?? '',
          channel,
          type,
          value: bytes,
        }
      }),
    )
    await this.store.graph.checkpoints.putWrites({ threadId, namespace, checkpointId }, rows)
  }

  override deleteThread(threadId: string): Promise<void> {
    return this.store.graph.checkpoints.deleteThread(threadId)
  }

  /**
   * The next version of a channel: the next whole number plus a random fraction, so versions still grow
   * (floor(v) + 1 + r > v for r in [0, 1)) but two forks of one thread, which both step a channel from the
   * same version, never write the same version of it (a channel's value is stored once per version).
   */
  override getNextVersion(current: number | undefined): number {
    return Math.floor(current ?? 0) + 1 + Math.random()
  }

  /** Metadata as the JSON text the store filters on, written by the serializer. */
  private async metadataText(metadata: CheckpointMetadata): Promise<string> {
    const [type, bytes] = await this.serde.dumpsTyped(metadata)
    if (type !== 'json') {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `Saving a checkpoint: the serializer wrote its metadata as "${type}", not JSON, which list() filters on. Use a serializer that writes objects as JSON (LangGraph's JsonPlusSerializer does).`,
      )
    }
    return typeof bytes === 'string' ? bytes : text.decode(bytes)
  }

  /** A stored checkpoint as LangGraph reads it: body, channel values, metadata, parent and pending writes. */
  private async tuple(row: GraphCheckpointRow): Promise<CheckpointTuple> {
    const key = { threadId: row.threadId, namespace: row.namespace }
    const body = (await this.serde.loadsTyped(row.type, row.checkpoint)) as Checkpoint
    const versions = Object.fromEntries(
      Object.entries(body.channel_versions ?? {}).map(([channel, version]) => [channel, String(version)]),
    )
    const channelValues: Record<string, unknown> = {}
    for (const blob of await this.store.graph.checkpoints.blobs(key, versions)) {
      if (blob.type !== EMPTY)
        channelValues[blob.channel] = await this.serde.loadsTyped(blob.type, blob.value ?? '')
    }
    const checkpoint: Checkpoint = { ...body, channel_values: channelValues }
    if (checkpoint.v < 4 && row.parentId !== null) {
      await this.migratePendingSends(checkpoint, { ...key, checkpointId: row.parentId })
    }
    const tuple: CheckpointTuple = {
      config: configOf(row),
      checkpoint,
      metadata: (await this.serde.loadsTyped('json', row.metadata)) as CheckpointMetadata,
      pendingWrites: await this.pendingWrites(row),
    }
    if (row.parentId !== null) tuple.parentConfig = configOf({ ...key, checkpointId: row.parentId })
    return tuple
  }

  /** The writes against a checkpoint in `writesSortKey` order, the order LangGraph applies them in. */
  private async pendingWrites(key: GraphCheckpointKey): Promise<CheckpointPendingWrite[]> {
    const writes = await this.store.graph.checkpoints.writes(key)
    writes.sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    )
    return Promise.all(
      writes.map(
        async (write): Promise<CheckpointPendingWrite> => [
          write.taskId,
          write.channel,
          await this.serde.loadsTyped(write.type, write.value ?? ''),
        ],
      ),
    )
  }

  /** A checkpoint of format < 4 gets its parent's pending sends (TASKS writes) as its TASKS channel. */
  private async migratePendingSends(checkpoint: Checkpoint, parent: GraphCheckpointKey): Promise<void> {
    const sends = (await this.pendingWrites(parent))
      .filter(([, channel]) => channel === TASKS)
      .map(([, , value]) => value)
    checkpoint.channel_values[TASKS] = sends
    const versions = Object.values(checkpoint.channel_versions)
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined)
  }
}
