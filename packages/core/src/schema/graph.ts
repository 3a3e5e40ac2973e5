import {
  blob,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'

/**
 * LangGraph's persistence (`@engram/langgraph`), kept by store/graph.ts. A checkpoint is the state of one
 * thread at one step: its serialised body without channel values, its metadata as JSON (for `list`'s
 * filters) and its parent. Channel values are stored once per (channel, version) in graph_blobs, so a step
 * writes only the channels it changed; pending writes hang off the checkpoint they were made against.
 * Bodies and values are what the saver's serializer made of them (a type and bytes): the store never reads
 * them.
 */
export const graphCheckpoints = sqliteTable(
  'graph_checkpoints',
  {
    threadId: text('thread_id').notNull(),
    namespace: text('checkpoint_ns').notNull().default(''),
    checkpointId: text('checkpoint_id').notNull(),
    parentId: text('parent_checkpoint_id'),
    type: text('type').notNull(),
    checkpoint: blob('checkpoint', { mode: 'buffer' }).notNull(),
    metadata: text('metadata').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.namespace, t.checkpointId] })],
)

/** One channel's value at one version of one thread and namespace; `type` `empty` for a cleared channel. */
export const graphBlobs = sqliteTable(
  'graph_blobs',
  {
    threadId: text('thread_id').notNull(),
    namespace: text('checkpoint_ns').notNull().default(''),
    channel: text('channel').notNull(),
    version: text('version').notNull(),
    type: text('type').notNull(),
    value: blob('value', { mode: 'buffer' }),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.namespace, t.channel, t.version] })],
)

/** A pending write of a task against a checkpoint; `idx` < 0 for the special channels (errors, interrupts). */
export const graphWrites = sqliteTable(
  'graph_writes',
  {
    threadId: text('thread_id').notNull(),
    namespace: text('checkpoint_ns').notNull().default(''),
    checkpointId: text('checkpoint_id').notNull(),
    taskId: text('task_id').notNull(),
    idx: integer('idx').notNull(),
    taskPath: text('task_path').notNull().default(''),
    channel: text('channel').notNull(),
    type: text('type').notNull(),
    value: blob('value', { mode: 'buffer' }),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.namespace, t.checkpointId, t.taskId, t.idx] })],
)

/**
 * LangGraph's long-term store: JSON items by owner, namespace (its labels joined by `.`) and key. The
 * owner scopes every read and write, so one owner's namespaces never show another's items. `search_text`
 * is what the full-text index holds (graph_items_fts, the CJK split of the indexed fields); `embedding` the
 * item's vector (float32, little-endian) when the store has an index with embeddings. `expires_at` (ms) is
 * set from `ttl_minutes` on write and, when the store refreshes on read, on read.
 */
export const graphItems = sqliteTable(
  'graph_items',
  {
    id: integer('id').primaryKey(),
    owner: text('owner').notNull().default(''),
    namespace: text('namespace').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    searchText: text('search_text'),
    embedding: blob('embedding', { mode: 'buffer' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    ttlMinutes: real('ttl_minutes'),
    expiresAt: integer('expires_at'),
  },
  (t) => [
    uniqueIndex('graph_items_key_idx').on(t.owner, t.namespace, t.key),
    index('graph_items_expiry_idx').on(t.expiresAt),
  ],
)
