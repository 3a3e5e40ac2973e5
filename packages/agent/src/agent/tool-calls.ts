import type { ToolCall } from '@engram/core'
import { runTool } from '../tools/run-tool.ts'
import type { AgentTool, ToolContext } from '../tools/tool.ts'
import type { Conversation } from './conversation.ts'

/** Runs the tool calls of one answer in order, appending each result as it comes. */
export async function runToolCalls(
  conversation: Conversation,
  tools: readonly AgentTool[],
  calls: readonly ToolCall[],
  context: ToolContext,
  beforeEach: () => void,
): Promise<void> {
  for (const call of calls) {
    beforeEach()
    const output = await callTool(tools, call.function.name, call.function.arguments, context)
    await conversation.append({ role: 'tool', tool_call_id: call.id, content: output })
  }
}

async function callTool(
  tools: readonly AgentTool[],
  name: string,
  args: string,
  context: ToolContext,
): Promise<string> {
  const tool = tools.find((t) => t.name === name)
  if (!tool) {
    return JSON.stringify({
      error: `There is no tool named ${JSON.stringify(name)}. Available: ${tools.map((t) => t.name).join(', ')}.`,
    })
  }
  return runTool(tool, args, context)
}
