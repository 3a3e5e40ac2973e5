// `@engram/agent/claude-memory`: Claude's client-side memory tool (`memory_20250818`) on Engram.
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory'
import { type ClaudeMemoryOptions, createClaudeMemoryHandlers } from './handlers.ts'

export { type ClaudeMemoryOptions, createClaudeMemoryHandlers } from './handlers.ts'
export { MEMORIES_ROOT, type MemoryPath, MemoryToolError, memoryPath } from './paths.ts'
export { CLAUDE_MEMORY_SOURCE, type ClaudeMemoryStore } from './store-files.ts'

/** The memory tool for `client.beta.messages.toolRunner({ tools: [claudeMemoryTool(options)] })`. */
export function claudeMemoryTool(
  options: ClaudeMemoryOptions,
  extraProps?: Parameters<typeof betaMemoryTool>[1],
) {
  return betaMemoryTool(createClaudeMemoryHandlers(options), extraProps)
}
