/** The PostgreSQL dialect's tables (drizzle pg-core): the same logical tables as `@engram/core/schema`. */

export { accessTokens } from './access-tokens.ts'
export { episodes } from './episodes.ts'
export { graphBlobs, graphCheckpoints, graphItems, graphWrites } from './graph.ts'
export { messages } from './messages.ts'
export { modelCalls } from './model-calls.ts'
export { sessions } from './sessions.ts'
export { writeTokens } from './write-tokens.ts'
