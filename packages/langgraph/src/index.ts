export { type CompactionOptions, compactMessages } from './compaction.ts'
export { type ConversationOptions, DEFAULT_MESSAGES_CHANNEL } from './conversation.ts'
export { RRF_K } from './fusion.ts'
export { EngramSaver, type EngramSaverOptions } from './saver.ts'
export {
  type EngramPutOperation,
  EngramStore,
  type EngramStoreOptions,
  type EngramStoreTtl,
} from './store.ts'
