export {
  type CompactionEvent,
  DEFAULT_SOURCE,
  EngramSession,
  type EngramSessionOptions,
  type EngramSessionStore,
} from './session.ts'
