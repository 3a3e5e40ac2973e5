import type { ToolCall } from '@engram/core'
import { runTool, toolError, toolResultText } from '../tools/run-tool.ts'
import type { AgentTool, ToolContext, ToolResult } from '../tools/tool.ts'
import { UNNAMED_TOOL } from './answer.ts'
import type { Conversation } from './conversation.ts'
import type { AgentEventHandler } from './events.ts'

/**
 * Runs the tool calls of one answer in order, appending each result as it comes; `beforeEach` may throw to
 * stop (an aborted run), leaving the remaining calls for the history repair to answer.
 */
export async function runToolCalls(
  conversation: Conversation,
  tools: readonly AgentTool[],
  calls: readonly ToolCall[],
  context: ToolContext,
  hooks: { beforeEach: () => void; emit: AgentEventHandler },
): Promise<void> {
  conversation.toolResults.clear()
  for (const call of calls) {
    hooks.beforeEach()
    const sessionId = conversation.session.id
    hooks.emit({ type: 'tool-started', sessionId, call })
    const result = await callTool(tools, call, context)
    conversation.toolResults.set(call.id, result)
    await conversation.append(
      { role: 'tool', tool_call_id: call.id, content: toolResultText(result) },
      isRetrievalCall(tools, call),
    )
    hooks.emit({ type: 'tool-finished', sessionId, call, result })
  }
}

/** Whether a call is of a tool that reads or keeps the agent's memory (AgentTool.retrieval). */
export const isRetrievalCall = (tools: readonly AgentTool[], call: ToolCall): boolean =>
  tools.find((t) => t.name === call.function.name)?.retrieval === true

/** The result of one call: the named tool's, or an error listing the tools there are. */
function callTool(tools: readonly AgentTool[], call: ToolCall, context: ToolContext): Promise<ToolResult> {
  const { name, arguments: args } = call.function
  const tool = tools.find((t) => t.name === name)
  if (tool) return runTool(tool, args, context)
  const available = `Available: ${tools.map((t) => t.name).join(', ')}.`
  return Promise.resolve(
    toolError(
      'unknown_tool',
      name === UNNAMED_TOOL
        ? `The tool call had no function name. ${available}`
        : `There is no tool named ${JSON.stringify(name)}. ${available}`,
    ),
  )
}
