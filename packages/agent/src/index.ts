// The app-layer configuration (engram.toml / engram.json and the environment).
export { CONFIG_FILE_NAMES, DEFAULT_MODEL_IDS, type LoadConfigOptions, loadConfig } from './config/load.ts'
export { maskedConfig, maskUrl } from './config/mask.ts'
export type { ApiConfig, EngramConfig, MemoryFilesConfig, ModelConfig } from './config/types.ts'
// Curated memory files, threat scanner and memory tools (issue 8).

// Model providers, the agent loop and the memory nudge (issue 9).
export {
  type Agent,
  type AgentConfig,
  type ContextReport,
  type CreateAgentOptions,
  createAgent,
  DEFAULT_MAX_STEPS,
  NEW_SESSION_END_REASON,
  type RunOptions,
} from './agent/agent.ts'
export { IMPORTANCE, importanceOf } from './agent/importance.ts'
export { type NudgeInput, type NudgeOutcome, runNudge } from './agent/nudge.ts'
export { NUDGE_MARKER } from './agent/nudge-prompt.ts'
export { buildSystemPrompt } from './agent/system-prompt.ts'
export { costOf } from './agent/usage.ts'
export { countChars, ENTRY_DELIMITER, type ParsedEntries, parseEntries, parseText } from './memory/format.ts'
export {
  DEFAULT_COMPACT_TRIGGER_RATIO,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_USER_CHAR_LIMIT,
  MemoryFiles,
  type MemorySnapshot,
  type MemoryUsage,
  type MemoryWriteResult,
} from './memory/memory-files.ts'
export {
  type AppliedBatch,
  applyOperations,
  type MemoryOperation,
  MemoryRefusal,
  type MemoryRefusalReason,
  type MemoryTarget,
} from './memory/operations.ts'
export { renderBlock } from './memory/snapshot.ts'
export { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicProvider } from './providers/anthropic.ts'
export { type CallObserver, createSummarizer, timedChat } from './providers/auxiliary.ts'
export type { ProviderOptions } from './providers/endpoint.ts'
export { maskKey, ProviderError, type ProviderErrorCode } from './providers/errors.ts'
export { createProvider } from './providers/factory.ts'
export type { ProxyEnv } from './providers/http.ts'
export { createOfflineModel, OFFLINE_MODEL_ID } from './providers/offline.ts'
export { createOpenAIProvider, OPENAI_DEFAULT_BASE_URL } from './providers/openai.ts'
export type {
  ChatRequest,
  ChatResult,
  ChatUsage,
  FinishReason,
  ModelProvider,
  ToolSpec,
} from './providers/types.ts'
export { scanForThreats, type ThreatScan } from './security/threats.ts'
export { createMemoryTool } from './tools/memory-tool.ts'
export { runTool, schemaProblem } from './tools/run-tool.ts'
export {
  createSessionSearchTool,
  type SessionSearchOptions,
  type SessionSearchStore,
} from './tools/session-search.ts'
