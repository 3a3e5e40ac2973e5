// The app-layer configuration (engram.toml / engram.json and the environment).
export * from './config/defaults.ts'
export { describeConfig } from './config/describe.ts'
export {
  CONFIG_FILE_NAMES,
  type ConfigOverrides,
  type LoadConfigOptions,
  loadConfig,
  memoryFolderFor,
} from './config/load.ts'
export { maskedConfig, maskUrl } from './config/mask.ts'
export type { ApiConfig, EngramConfig, MemoryFilesConfig, ModelConfig } from './config/types.ts'
// Curated memory files, threat scanner and memory tools.

// Model providers, the agent loop and the memory nudge.
export { type Agent, createAgent } from './agent/agent.ts'
export { UNNAMED_TOOL } from './agent/answer.ts'
export type { ContextReport } from './agent/context.ts'
export { type AgentEvent, type AgentEventHandler, renderAgentEvent } from './agent/events.ts'
export { IMPORTANCE, importanceOf } from './agent/importance.ts'
export { type NudgeInput, type NudgeOutcome, runNudge } from './agent/nudge.ts'
export {
  type AgentConfig,
  type CreateAgentOptions,
  DEFAULT_MAX_STEPS,
  type RunOptions,
} from './agent/options.ts'
export { NEW_SESSION_END_REASON } from './agent/sessions.ts'
export { buildSystemPrompt, splitSystemPrompt } from './agent/system-prompt.ts'
export { costOf } from './agent/usage.ts'
export { countChars, ENTRY_DELIMITER, type ParsedEntries, parseEntries, parseText } from './memory/format.ts'
export {
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
export { CONSOLIDATE_MARKER, MEMORY_SECTION_HEADING, NUDGE_MARKER } from './prompts/markers.ts'
export { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicProvider } from './providers/anthropic.ts'
export { type CallObserver, createSummarizer, timedChat } from './providers/auxiliary.ts'
export { checkModel, type ModelCheck } from './providers/check.ts'
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
  ToolParameters,
  ToolSpec,
} from './providers/types.ts'
export { scanForThreats, type ThreatScan } from './security/threats.ts'
export { createMemoryTool } from './tools/memory-tool.ts'
export {
  defineTool,
  runTool,
  toolError,
  toolResultText,
} from './tools/run-tool.ts'
export {
  createSessionSearchTool,
  type FoundHit,
  type QuotedMessage,
  renderSessionSearch,
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
