/**
 * `@engram/core/types`: the message and store types and EngramError, with no runtime dependency (no
 * drizzle, no driver), for packages such as @engram/compressor that work on messages without a store.
 */
export type { DriverCapabilities, QueryResult, Row, SqlValue, Statement, StorageDriver } from './driver.ts'
export { EngramError, type EngramErrorCode } from './engram-error.ts'
export type { Store } from './store/store.ts'
export type * from './types.ts'
