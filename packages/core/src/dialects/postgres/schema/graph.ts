import {
  customType,
  doublePrecision,
  index,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { int, rowId, searchVector } from './columns.ts'

/** The PostgreSQL twins of the SQLite graph tables (see src/schema/graph.ts for what each holds). */
const bytea = customType<{ data: Uint8Array }>({ dataType: () => 'bytea' })

export const graphCheckpoints = pgTable(
  'graph_checkpoints',
  {
    threadId: text('thread_id').notNull(),
    namespace: text('checkpoint_ns').notNull().default(''),
    checkpointId: text('checkpoint_id').notNull(),
    parentId: text('parent_checkpoint_id'),
    type: text('type').notNull(),
    checkpoint: bytea('checkpoint').notNull(),
    metadata: text('metadata').notNull(),
    createdAt: int('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.namespace, t.checkpointId] })],
)

export const graphBlobs = pgTable(
  'graph_blobs',
  {
    threadId: text('thread_id').notNull(),
    namespace: text('checkpoint_ns').notNull().default(''),
    channel: text('channel').notNull(),
    version: text('version').notNull(),
    type: text('type').notNull(),
    value: bytea('value'),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.namespace, t.channel, t.version] })],
)

export const graphWrites = pgTable(
  'graph_writes',
  {
    threadId: text('thread_id').notNull(),
    namespace: text('checkpoint_ns').notNull().default(''),
    checkpointId: text('checkpoint_id').notNull(),
    taskId: text('task_id').notNull(),
    idx: int('idx').notNull(),
    taskPath: text('task_path').notNull().default(''),
    channel: text('channel').notNull(),
    type: text('type').notNull(),
    value: bytea('value'),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.namespace, t.checkpointId, t.taskId, t.idx] })],
)

export const graphItems = pgTable(
  'graph_items',
  {
    id: rowId('id'),
    owner: text('owner').notNull().default(''),
    namespace: text('namespace').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    searchText: text('search_text'),
    embedding: bytea('embedding'),
    createdAt: int('created_at').notNull(),
    updatedAt: int('updated_at').notNull(),
    ttlMinutes: doublePrecision('ttl_minutes'),
    expiresAt: int('expires_at'),
    searchVector: searchVector("''"),
  },
  (t) => [
    uniqueIndex('graph_items_key_idx').on(t.owner, t.namespace, t.key),
    index('graph_items_expiry_idx').on(t.expiresAt),
    index('graph_items_search_idx').using('gin', t.searchVector),
  ],
)
