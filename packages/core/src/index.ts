export {
  type AccessToken,
  createAccessToken,
  listAccessTokens,
  type NewAccessToken,
  revokeAccessToken,
  verifyAccessToken,
} from './access-tokens.ts'
export type { ConnectionOptions, DriverName } from './connection.ts'
export { DEFAULT_DATABASE_PATH } from './connection.ts'
export type { EngramDatabase } from './database.ts'
export type { DriverCapabilities, QueryResult, Row, SqlValue, Statement, StorageDriver } from './driver.ts'
export { EngramError, type EngramErrorCode } from './engram-error.ts'
export { openStore, openStoreWithDriver } from './open-store.ts'
export { adoptSessions, countUnownedSessions, listUnownedSessions } from './session-owners.ts'
export { MAX_LIMIT as MAX_PAGE_LIMIT } from './store/args.ts'
export type {
  GraphBlob,
  GraphCheckpointKey,
  GraphCheckpointQuery,
  GraphCheckpointRow,
  GraphCheckpoints,
  GraphItemPut,
  GraphItemRow,
  GraphItemSearch,
  GraphItems,
  GraphStorage,
  GraphWrite,
  NewGraphCheckpoint,
} from './store/graph.ts'
export type { Store } from './store/store.ts'
export type { RetryPolicy, StoreOptions } from './store-options.ts'
export * from './types.ts'
