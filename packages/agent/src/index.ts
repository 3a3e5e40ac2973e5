// The app-layer configuration (engram.toml / engram.json and the environment).
export { CONFIG_FILE_NAMES, DEFAULT_MODEL_IDS, type LoadConfigOptions, loadConfig } from './config/load.ts'
export { maskedConfig, maskUrl } from './config/mask.ts'
export type { ApiConfig, EngramConfig, MemoryFilesConfig, ModelConfig } from './config/types.ts'
// Curated memory files, threat scanner and memory tools (issue 8).
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
export { scanForThreats, type ThreatScan } from './security/threats.ts'
export { createMemoryTool } from './tools/memory-tool.ts'
export { runTool, schemaProblem } from './tools/run-tool.ts'
export {
  createSessionSearchTool,
  type SessionSearchOptions,
  type SessionSearchStore,
} from './tools/session-search.ts'
