import type { StoreContext } from './context.ts'
import type {
  GraphBlob,
  GraphCheckpointKey,
  GraphCheckpointQuery,
  GraphCheckpointRow,
  GraphWrite,
  NewGraphCheckpoint,
} from './graph-checkpoints.ts'

import * as checkpoints from './graph-checkpoints.ts'
import type { GraphItemPut, GraphItemRow, GraphItemSearch } from './graph-items.ts'
import * as items from './graph-items.ts'

/**
 * LangGraph's checkpoints (`store.graph.checkpoints`): the storage under `@engram/langgraph`'s EngramSaver,
 * on every engine. Each write is one transaction; `thread_id`, `checkpoint_ns` and `checkpoint_id` are
 * validated before any SQL runs (`INVALID_ARGUMENT` naming the field).
 */
export class GraphCheckpoints {
  constructor(private readonly ctx: StoreContext) {}

  /** Stores a checkpoint with the values of the channels it changed (upserts: a retry writes nothing new). */
  put(checkpoint: NewGraphCheckpoint, blobs: readonly GraphBlob[]): Promise<void> {
    return this.ctx.operation(() => checkpoints.putCheckpoint(this.ctx, checkpoint, blobs))
  }

  /** Stores a task's pending writes against a checkpoint (a regular write already stored is kept). */
  putWrites(key: GraphCheckpointKey, writes: readonly GraphWrite[]): Promise<void> {
    return this.ctx.operation(() => checkpoints.putWrites(this.ctx, key, writes))
  }

  /** The checkpoint with this id, or the newest of the thread's namespace without one; null when none. */
  get(
    key: Omit<GraphCheckpointKey, 'checkpointId'> & { checkpointId?: string },
  ): Promise<GraphCheckpointRow | null> {
    return this.ctx.operation(() => checkpoints.getCheckpoint(this.ctx, key))
  }

  /** Checkpoints newest id first; one indexed read. */
  list(query: GraphCheckpointQuery = {}): Promise<GraphCheckpointRow[]> {
    return this.ctx.operation(() => checkpoints.listCheckpoints(this.ctx, query))
  }

  /** The channel values stored at the versions given. */
  blobs(
    key: Omit<GraphCheckpointKey, 'checkpointId'>,
    versions: Readonly<Record<string, string>>,
  ): Promise<GraphBlob[]> {
    return this.ctx.operation(() => checkpoints.getBlobs(this.ctx, key, versions))
  }

  /** The pending writes stored against a checkpoint. */
  writes(key: GraphCheckpointKey): Promise<GraphWrite[]> {
    return this.ctx.operation(() => checkpoints.getWrites(this.ctx, key))
  }

  /** Deletes everything of a thread, in every namespace, in one transaction. */
  deleteThread(threadId: string): Promise<void> {
    return this.ctx.operation(() => checkpoints.deleteThread(this.ctx, threadId))
  }
}

/**
 * LangGraph's long-term items (`store.graph.items`): JSON values by owner, namespace (labels joined by `.`)
 * and key, with a ttl, a vector and full-text search (CJK included) over the text each item is indexed by.
 * Every method names the owner: one owner's items never reach another's reads.
 */
export class GraphItems {
  constructor(private readonly ctx: StoreContext) {}

  /** Writes (upserts) and deletes (`value: null`) items in one transaction. */
  put(owner: string, puts: readonly GraphItemPut[]): Promise<void> {
    return this.ctx.operation(() => items.putItems(this.ctx, owner, puts))
  }

  /** The live (unexpired) item, or null. One indexed read. */
  get(owner: string, namespace: string, key: string): Promise<GraphItemRow | null> {
    return this.ctx.operation(() => items.getItem(this.ctx, owner, namespace, key))
  }

  /** Live items under a namespace prefix: ranked by a query (full-text, CJK included) or newest first. */
  search(owner: string, search: GraphItemSearch): Promise<GraphItemRow[]> {
    return this.ctx.operation(() => items.searchItems(this.ctx, owner, search))
  }

  /** Sets the expiry of the items that have a ttl to their ttl from now (one transaction). */
  refresh(owner: string, keys: readonly { namespace: string; key: string }[]): Promise<void> {
    return this.ctx.operation(() => items.refreshItems(this.ctx, owner, keys))
  }

  /** The distinct namespaces of the owner's live items. */
  namespaces(owner: string): Promise<string[]> {
    return this.ctx.operation(() => items.listNamespaces(this.ctx, owner))
  }

  /** Deletes the expired items of every owner; returns how many went. */
  sweep(): Promise<number> {
    return this.ctx.operation(() => items.sweepItems(this.ctx))
  }
}

/** What the store keeps for LangGraph (`store.graph`). */
export class GraphStorage {
  readonly checkpoints: GraphCheckpoints
  readonly items: GraphItems

  constructor(ctx: StoreContext) {
    this.checkpoints = new GraphCheckpoints(ctx)
    this.items = new GraphItems(ctx)
  }
}

export type {
  GraphBlob,
  GraphCheckpointKey,
  GraphCheckpointQuery,
  GraphCheckpointRow,
  GraphWrite,
  NewGraphCheckpoint,
} from './graph-checkpoints.ts'
export type { GraphItemPut, GraphItemRow, GraphItemSearch }
