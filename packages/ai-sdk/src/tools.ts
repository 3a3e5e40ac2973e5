import {
  type AgentTool,
  createMemoryTool,
  createSessionSearchTool,
  type MemoryFiles,
  runTool,
  type SessionSearchStore,
  type ToolContext,
  toolResultText,
} from '@engram/agent'
import { jsonSchema, type Tool, tool } from 'ai'

/** An Engram agent tool as an AI SDK `tool()`: the same schema, checks and result text as in the agent. */
export function toAiTool(agentTool: AgentTool, context: ToolContext): Tool<unknown, string> {
  return tool({
    description: agentTool.description,
    inputSchema: jsonSchema<unknown>(agentTool.parameters as Parameters<typeof jsonSchema>[0]),
    execute: async (input, { abortSignal }) =>
      toolResultText(
        await runTool(agentTool, input, abortSignal ? { ...context, signal: abortSignal } : context),
      ),
  })
}

export interface EngramToolsOptions {
  memory: MemoryFiles
  store: SessionSearchStore
  /** The Engram session the model is in (left out of its own searches) and the user scope. */
  context: ToolContext
}

/** The agent's `memory` and `session_search` tools, for `generateText` / `streamText({ tools })`. */
export function engramTools({ memory, store, context }: EngramToolsOptions) {
  return {
    memory: toAiTool(createMemoryTool(memory), context),
    session_search: toAiTool(createSessionSearchTool(store), context),
  }
}
