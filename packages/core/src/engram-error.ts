/** The error type and its codes: a leaf module, so dialect error mappings can build on it without a cycle. */
export type EngramErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_CONFIG'
  | 'INVALID_MESSAGE'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_EXISTS'
  | 'DATABASE_PATH'
  | 'DATABASE_READONLY'
  | 'NOT_A_DATABASE'
  | 'FOREIGN_DATABASE'
  | 'DATABASE_BUSY'
  | 'DATABASE_CORRUPT'
  | 'DISK_FULL'
  | 'DATABASE_ERROR'
  | 'FTS5_MISSING'
  | 'SCHEMA_TOO_NEW'
  | 'MIGRATION_FAILED'
  | 'DRIVER_MISSING'
  | 'DATABASE_AUTH'
  | 'DATABASE_MISSING'
  | 'DATABASE_UNREACHABLE'
  | 'STORE_CLOSED'
  | 'CONTEXT_TOO_LARGE'
  | 'MEMORY_FILE_ERROR'

/** The one error Engram throws: `code` names the cause, `cause` holds the driver's own error. */
export class EngramError extends Error {
  override readonly name = 'EngramError'
  readonly code: EngramErrorCode

  constructor(code: EngramErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}
