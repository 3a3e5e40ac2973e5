import type { ConnectionOptions } from './connection.ts'
import { EngramError } from './errors.ts'
import { DEFAULT_RETRY, type RetryPolicy } from './store/context.ts'

const JOURNAL_MODES = ['WAL', 'DELETE', 'TRUNCATE', 'PERSIST', 'MEMORY', 'OFF'] as const
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const

export interface StoreOptions extends ConnectionOptions {
  /** How long SQLite itself waits for a lock before the store's own retries start (ms, default 1000). */
  busyTimeout?: number
  /** Default WAL: readers never block the writer, and several processes can share the file. */
  journalMode?: (typeof JOURNAL_MODES)[number]
  /** Default NORMAL: durable in WAL mode across application crashes; FULL costs ~22% of append speed. */
  synchronous?: (typeof SYNCHRONOUS)[number]
  retry?: Partial<RetryPolicy>
  /** Where the drizzle migrations live (default: the repository's `drizzle/` folder). */
  migrationsFolder?: string
}

/** Store settings after validation, with every default filled in. */
export interface ResolvedStoreSettings {
  busyTimeout: number
  journalMode: (typeof JOURNAL_MODES)[number]
  synchronous: (typeof SYNCHRONOUS)[number]
  retry: RetryPolicy
  migrationsFolder: string | undefined
}

const invalid = (message: string) => new EngramError('INVALID_CONFIG', message)

function wholeNumber(value: unknown, name: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw invalid(`${name} must be a whole number of at least ${min} (got ${JSON.stringify(value)}).`)
  }
  return value
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  const upper = typeof value === 'string' ? value.toUpperCase() : value
  if (!allowed.includes(upper as T)) {
    throw invalid(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)}).`)
  }
  return upper as T
}

/** Validates the store settings before anything is opened; values reach PRAGMAs only through this. */
export function resolveStoreSettings(options: StoreOptions): ResolvedStoreSettings {
  const retry = { ...DEFAULT_RETRY, ...options.retry }
  wholeNumber(retry.attempts, 'retry.attempts', 1)
  wholeNumber(retry.minDelayMs, 'retry.minDelayMs', 0)
  wholeNumber(retry.maxDelayMs, 'retry.maxDelayMs', retry.minDelayMs)
  return {
    busyTimeout: wholeNumber(options.busyTimeout ?? 1000, 'busyTimeout', 0),
    journalMode: oneOf(options.journalMode ?? 'WAL', JOURNAL_MODES, 'journalMode'),
    synchronous: oneOf(options.synchronous ?? 'NORMAL', SYNCHRONOUS, 'synchronous'),
    retry,
    migrationsFolder: options.migrationsFolder,
  }
}

/**
 * Store options from the articles' `[hermes.storage]` TOML table (`db_path`, `journal_mode`,
 * `synchronous`, `busy_timeout`, `fts_enabled`). Unknown keys are refused as likely typos.
 */
export function storeOptionsFromToml(table: Record<string, unknown>): StoreOptions {
  const known = ['db_path', 'journal_mode', 'synchronous', 'busy_timeout', 'fts_enabled']
  for (const key of Object.keys(table)) {
    if (!known.includes(key))
      throw invalid(`hermes.storage.${key} is not a known key (known: ${known.join(', ')}).`)
  }
  if (table.fts_enabled === false) {
    throw invalid(
      'hermes.storage.fts_enabled = false is not supported: Engram always indexes messages for search.',
    )
  }
  if (table.db_path !== undefined && typeof table.db_path !== 'string') {
    throw invalid(`hermes.storage.db_path must be a string (got ${JSON.stringify(table.db_path)}).`)
  }
  const options: StoreOptions = {}
  if (table.db_path !== undefined) options.url = table.db_path as string
  if (table.journal_mode !== undefined)
    options.journalMode = oneOf(table.journal_mode, JOURNAL_MODES, 'hermes.storage.journal_mode')
  if (table.synchronous !== undefined)
    options.synchronous = oneOf(table.synchronous, SYNCHRONOUS, 'hermes.storage.synchronous')
  if (table.busy_timeout !== undefined)
    options.busyTimeout = wholeNumber(table.busy_timeout, 'hermes.storage.busy_timeout', 0)
  return options
}
