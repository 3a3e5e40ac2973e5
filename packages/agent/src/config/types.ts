import type { CompressorConfig } from '@engram/compressor'
import type { StoreOptions } from '@engram/core'

/** The curated memory files (`[memory_files]` and `memory.*_path`). */
export interface MemoryFilesConfig {
  memoryPath: string
  userPath: string
  /** `memory_md_char_limit`, default 2,200 characters (as the user sees them). */
  memoryCharLimit: number
  /** `user_md_char_limit`, default 1,375. */
  userCharLimit: number
  /** `compact_trigger_ratio`, default 0.9: above it the agent is told to consolidate. */
  compactTriggerRatio: number
}

/** One model: the main one or the cheap auxiliary one (`models.main`, `models.compressor`). */
export interface ModelConfig {
  modelId: string
  /** Upper bound for one answer (`max_tokens`). */
  maxTokens: number
  /** The model's context window in tokens; the compressor triggers at a share of it. */
  contextWindow: number
  /** USD per million tokens, when known: usage rows then carry a cost. */
  price?: { input: number; output: number; cacheRead?: number }
}

/** How models are reached. `offline` is the deterministic local model (no key configured). */
export interface ApiConfig {
  provider: 'openai' | 'anthropic' | 'offline'
  baseUrl?: string
  apiKey?: string
  /** Which environment variable (or config key) the key came from, for error messages. */
  apiKeySource?: string
  timeoutSeconds: number
}

/**
 * The whole effective configuration after the file (TOML or JSON settings) and the environment are merged
 * and validated. Every part is typed options for the layer it configures; nothing below the agent reads
 * files.
 */
export interface EngramConfig {
  storage: StoreOptions
  compressor: CompressorConfig
  memoryFiles: MemoryFilesConfig
  nudge: { intervalTasks: number }
  api: ApiConfig
  models: { main: ModelConfig; compressor: ModelConfig }
  /** The top-level `user` key: whose sessions these are (the CLI's identity; ENGRAM_USER wins). */
  user?: string
  /** The `[mcp]` table, when the file has one: the MCP server's scope and switches (see @engram/mcp). */
  mcp?: { user?: string; project?: string; readOnly?: boolean; sessionLog?: boolean }
  /** Where the values came from: the file read (null when none) and the environment variables used. */
  origin?: { file: string | null; env: string[] }
}
