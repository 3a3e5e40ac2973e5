import { textOf } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import type { MemoryFiles } from '../memory/memory-files.ts'
import { type CallObserver, timedChat } from '../providers/auxiliary.ts'
import type { ModelProvider } from '../providers/types.ts'
import { runTool, toolError, toolResultText } from '../tools/run-tool.ts'
import type { AgentTool, ToolContext, ToolResult } from '../tools/tool.ts'
import { normaliseAnswer } from './answer.ts'
import { nudgeSystemPrompt, nudgeUserMessage } from './nudge-prompt.ts'

/** Model calls one review may make (each may write with the memory tool). */
const NUDGE_MAX_STEPS = 4
/** The review reads at most this many of the latest messages. */
const NUDGE_MAX_MESSAGES = 60

export interface NudgeOutcome {
  /** Memory tool calls that succeeded. */
  writes: number
  /** The review was asked to consolidate (usage above `compact_trigger_ratio`). */
  consolidate: boolean
  /** The reviewer's last words. */
  answer: string
}

export interface NudgeInput {
  provider: ModelProvider
  memory: MemoryFiles
  memoryTool: AgentTool
  /** The turns since the previous review. */
  messages: readonly ChatMessage[]
  context: ToolContext
  maxTokens: number
  /** Sees each review call (the agent records it as `nudge` usage). */
  observe?: CallObserver
}

/**
 * The self-improvement nudge: a short run on the auxiliary model with only the memory tool, which reads
 * the recent turns and the current memory files and saves the durable facts they hold; when the files are
 * above `compact_trigger_ratio` it is told to consolidate first. Its messages are not part of the
 * conversation (nothing is appended to the session); its calls are observed. Cost: up to 4 model calls.
 */
export async function runNudge(input: NudgeInput): Promise<NudgeOutcome> {
  const snapshot = await input.memory.snapshot()
  const system = nudgeSystemPrompt(snapshot.text, snapshot.needsConsolidation)
  const messages: ChatMessage[] = [
    { role: 'user', content: nudgeUserMessage(input.messages.slice(-NUDGE_MAX_MESSAGES), input.maxTokens) },
  ]
  const tools = [input.memoryTool]
  const toolResults = new Map<string, ToolResult>()
  let writes = 0
  let answer = ''
  for (let step = 0; step < NUDGE_MAX_STEPS; step++) {
    const result = await timedChat(
      input.provider,
      { system, messages, tools, toolResults, maxTokens: input.maxTokens, signal: input.context.signal },
      input.observe,
    )
    const message = normaliseAnswer(result.message, messages)
    messages.push(message)
    answer = textOf(message)
    if (!message.tool_calls?.length) break
    toolResults.clear()
    for (const call of message.tool_calls) {
      const outcome =
        call.function.name === input.memoryTool.name
          ? await runTool(input.memoryTool, call.function.arguments, input.context)
          : toolError(
              'unavailable',
              `Only the ${input.memoryTool.name} tool is available in a memory review.`,
            )
      if (outcome.ok) writes++
      toolResults.set(call.id, outcome)
      messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultText(outcome) })
    }
  }
  return { writes, consolidate: snapshot.needsConsolidation, answer }
}
