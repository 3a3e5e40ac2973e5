// The public surface of `@engram/agent`: what its README and docs/agent-api.md document, and what the
// other packages of the workspace import. Everything else stays inside the package.

// The agent loop.
export { type Agent, createAgent } from './agent/agent.ts'
export type { ContextReport } from './agent/context.ts'
export { type AgentEvent, type AgentEventHandler, renderAgentEvent } from './agent/events.ts'
export type { AgentConfig, CreateAgentOptions, RunOptions } from './agent/options.ts'
export { splitSystemPrompt } from './agent/system-prompt.ts'
// The app-layer configuration (engram.toml / engram.json and the environment).
export {
  DEFAULT_CLAUDE_MEMORY_CHAR_LIMIT,
  DEFAULT_COMPACT_TRIGGER_RATIO,
  DEFAULT_COMPRESSOR_CONFIG,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_DATABASE_PATH,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_MODEL_IDS,
  DEFAULT_NUDGE_INTERVAL_TASKS,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_USER_CHAR_LIMIT,
} from './config/defaults.ts'
export { describeConfig } from './config/describe.ts'
export { type LoadConfigOptions, loadConfig } from './config/load.ts'
export { maskUrl } from './config/mask.ts'
export type { EngramConfig, MemoryFilesConfig, ModelConfig } from './config/types.ts'

// Curated memory files and the threat scanner.
export { MemoryFiles } from './memory/memory-files.ts'
export { type MemoryOperation, MemoryRefusal, type MemoryTarget } from './memory/operations.ts'
export { renderBlock } from './memory/snapshot.ts'
// Model providers.
export { createAnthropicProvider } from './providers/anthropic.ts'
export { createSummarizer } from './providers/auxiliary.ts'
export { checkModel, type ModelCheck } from './providers/check.ts'
export type { ProviderOptions } from './providers/endpoint.ts'
export { ProviderError, type ProviderErrorCode } from './providers/errors.ts'
export { createProvider } from './providers/factory.ts'
export { createOfflineModel } from './providers/offline.ts'
export { createOpenAIProvider } from './providers/openai.ts'
export type {
  ChatRequest,
  ChatResult,
  ChatUsage,
  FinishReason,
  ModelProvider,
  ToolParameters,
  ToolSpec,
} from './providers/types.ts'
export { type SecondOpinion, scanWithSecondOpinion } from './security/second-opinion.ts'
export { scanForThreats, type ThreatScan } from './security/threats.ts'

// Tools: their definition, results, and the memory and session_search tools.
export { createMemoryTool } from './tools/memory-tool.ts'
export { defineTool, runTool, toolResultText } from './tools/run-tool.ts'
export {
  createSessionSearchTool,
  type SessionSearchOptions,
  type SessionSearchResult,
  type SessionSearchStore,
} from './tools/session-search.ts'
export { describeSession, messageText, type SessionLine, sessionLine } from './tools/session-text.ts'
export {
  type AgentTool,
  specOf,
  type ToolContext,
  type ToolDefinition,
  type ToolErrorCode,
  type ToolResult,
} from './tools/tool.ts'
