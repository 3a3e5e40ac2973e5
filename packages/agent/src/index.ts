export { CONFIG_FILE_NAMES, DEFAULT_MODEL_IDS, type LoadConfigOptions, loadConfig } from './config/load.ts'
export { maskedConfig, maskUrl } from './config/mask.ts'
export type { ApiConfig, EngramConfig, MemoryFilesConfig, ModelConfig } from './config/types.ts'
