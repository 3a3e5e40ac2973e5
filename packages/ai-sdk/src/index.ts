export {
  CHAT_SOURCE,
  type ChatStore,
  type ChatStoreOptions,
  type ChatStoreStore,
  createChatStore,
  type LoadChatOptions,
} from './chat.ts'
export {
  type CompactionEvent,
  type EngramMiddlewareOptions,
  engramMiddleware,
  type RecordingStore,
} from './middleware.ts'
export { type EngramToolsOptions, engramTools, toAiTool } from './tools.ts'
