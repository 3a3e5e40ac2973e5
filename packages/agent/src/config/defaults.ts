import { DEFAULT_COMPRESSOR_CONFIG } from '@engram/compressor'
import { DEFAULT_DATABASE_PATH } from '@engram/core'
import { OFFLINE_MODEL_ID } from '../providers/offline.ts'

/**
 * Every default of the configuration, written once. The loader, the agent, the memory files, the providers
 * and `engram init`'s template import them from here; the compressor's own settings (`trigger_ratio`,
 * `tail_protect_tokens`, `summary_max_tokens`, …) are the compressor package's
 * {@link DEFAULT_COMPRESSOR_CONFIG}, and the database path is core's {@link DEFAULT_DATABASE_PATH}.
 */
export { DEFAULT_COMPRESSOR_CONFIG, DEFAULT_DATABASE_PATH }

/** The model used when the configuration names none, per provider (`models.main.model_id`, `HERMES_MODEL`). */
export const DEFAULT_MODEL_IDS = Object.freeze({
  openai: 'gpt-4o-mini',
  // Anthropic's current Sonnet; the SDK's table of deprecated models must not list it.
  anthropic: 'claude-sonnet-5-5',
  offline: OFFLINE_MODEL_ID,
} as const)

/** `models.*.context_window`: the window the compressor measures against, in tokens. */
export const DEFAULT_CONTEXT_WINDOW = 128_000

/** `models.main.max_tokens`: the upper bound of one answer (the Anthropic API requires one). */
export const DEFAULT_MAX_TOKENS = 4_096

/** `api.timeout_seconds`: per attempt, the wait for the answer to start and the longest silence inside it. */
export const DEFAULT_TIMEOUT_SECONDS = 60

/** The longest one attempt's whole answer may take, however steadily it trickles in. */
export const DEFAULT_ANSWER_TIMEOUT_SECONDS = 600

/** Retries after the first attempt on 429, 5xx, timeouts and connection errors. */
export const DEFAULT_MAX_RETRIES = 3

/** `[memory_files]`: the caps in characters as the user sees them, and the share that asks to consolidate. */
export const DEFAULT_MEMORY_CHAR_LIMIT = 2_200
export const DEFAULT_USER_CHAR_LIMIT = 1_375
export const DEFAULT_COMPACT_TRIGGER_RATIO = 0.9

/** The memory files' names; by default they live in the database's folder. */
export const MEMORY_FILE_NAME = 'MEMORY.md'
export const USER_FILE_NAME = 'USER.md'

/** `nudge.interval_tasks`: completed tasks between memory reviews; 0 turns the nudge off. */
export const DEFAULT_NUDGE_INTERVAL_TASKS = 15

/** The Claude memory tool's cap on its files other than MEMORY.md and USER.md, in characters, all together. */
export const DEFAULT_CLAUDE_MEMORY_CHAR_LIMIT = 50_000
