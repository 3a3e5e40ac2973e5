import { DEFAULT_COMPRESSOR_CONFIG, type TokenCounter } from '@engram/compressor'
import type { Store } from '@engram/core'
import {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_TOKENS,
  DEFAULT_NUDGE_INTERVAL_TASKS,
} from '../config/defaults.ts'
import type { EngramConfig, ModelConfig } from '../config/types.ts'
import type { MemoryFiles } from '../memory/memory-files.ts'
import type { ModelProvider } from '../providers/types.ts'
import type { AgentTool } from '../tools/tool.ts'
import type { AgentEventHandler } from './events.ts'

/** Model calls one `run` may make before it stops without a final answer. */
export const DEFAULT_MAX_STEPS = 12

/** The parts of {@link EngramConfig} the loop reads. */
export type AgentConfig = Pick<EngramConfig, 'compressor' | 'nudge' | 'models'>

export interface CreateAgentOptions {
  store: Store
  provider: ModelProvider
  /** The cheap model for summaries and the nudge; defaults to `provider`. */
  auxProvider?: ModelProvider
  memory: MemoryFiles
  /**
   * The compressor, nudge and model settings of the loaded configuration. Parts left out take the Hermes
   * defaults: the default compressor settings, a nudge every 15 tasks, and for each model its provider's id,
   * 4,096 answer tokens (1,500 for the auxiliary one) and a 128,000-token window.
   */
  config?: Partial<AgentConfig>
  /** Extra tools, offered after `memory` and `session_search`. */
  tools?: AgentTool[]
  /** `cli`, `telegram`, …: stored on sessions, and what `resume('latest')` looks for. */
  source: string
  /** Scopes sessions and searches to one user. */
  userId?: string
  /**
   * Receives what happens as it happens (context checks, compressions, tool calls, usage, memory reviews);
   * `renderAgentEvent` turns them into the `[ctx] …` / `[nudge] …` lines. Default: nothing reported.
   */
  onEvent?: AgentEventHandler
  maxSteps?: number
  /** Clock for the date in the system prompt. */
  now?: () => Date
  /** Counts tokens when the provider has not reported any; default the BPE counter. */
  tokenCounter?: TokenCounter
  /**
   * Off by default. When true, memory writes the threat scan passes but is unsure of go to the auxiliary
   * model for a second opinion (a fixed prompt, a few tokens; recorded as `scan` usage), which may refuse
   * them; see docs/threat-scanning.md.
   */
  secondOpinion?: boolean
}

export interface RunOptions {
  /** Streams the answer's text as it arrives. */
  onText?: (delta: string) => void
  /** Aborts the run: the model call and the tools stop, everything already persisted stays. */
  signal?: AbortSignal
}

/** The configuration with every part filled in (see {@link CreateAgentOptions.config}). */
export function withDefaults(options: CreateAgentOptions): AgentConfig {
  const model = (provider: ModelProvider, maxTokens: number): ModelConfig => ({
    modelId: provider.model,
    maxTokens,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
  })
  const config = options.config ?? {}
  return {
    compressor: config.compressor ?? { ...DEFAULT_COMPRESSOR_CONFIG },
    nudge: config.nudge ?? { intervalTasks: DEFAULT_NUDGE_INTERVAL_TASKS },
    models: config.models ?? {
      main: model(options.provider, DEFAULT_MAX_TOKENS),
      compressor: model(options.auxProvider ?? options.provider, DEFAULT_COMPRESSOR_CONFIG.summaryMaxTokens),
    },
  }
}

/** The model that writes summaries and runs the nudge, with its settings. */
export interface AuxModel {
  provider: ModelProvider
  model: ModelConfig
}

/** The auxiliary provider with the compressor model's settings, or the main one with its own. */
export function auxModel(options: CreateAgentOptions, config: AgentConfig): AuxModel {
  return options.auxProvider
    ? { provider: options.auxProvider, model: config.models.compressor }
    : { provider: options.provider, model: config.models.main }
}
