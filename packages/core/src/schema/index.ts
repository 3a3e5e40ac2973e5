export { episodes } from './episodes.ts'
export { messages } from './messages.ts'
export { modelCalls } from './model-calls.ts'
export { sessions } from './sessions.ts'
