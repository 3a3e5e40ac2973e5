import type { MemoryFiles } from '../memory/memory-files.ts'
import type { CallObserver } from '../providers/auxiliary.ts'
import type { AgentTool, ToolContext } from '../tools/tool.ts'
import type { Conversation } from './conversation.ts'
import type { AgentEventHandler } from './events.ts'
import { runNudge } from './nudge.ts'
import type { AuxModel } from './options.ts'

export interface NudgeSchedule {
  /** Every this many answered turns; 0 or less turns the nudge off. */
  intervalTasks: number
  aux: AuxModel
  memory: MemoryFiles
  memoryTool: AgentTool
  observe: CallObserver
  emit: AgentEventHandler
}

/**
 * Runs the memory review when `tasks` answered turns make it due, over the messages since the last one. A
 * failed review is reported and skipped: it never fails the turn it follows.
 */
export async function nudgeIfDue(
  schedule: NudgeSchedule,
  tasks: number,
  conversation: Conversation,
  context: ToolContext,
): Promise<void> {
  const interval = schedule.intervalTasks
  if (interval <= 0 || tasks % interval !== 0) return
  const recent = conversation.takeRecent()
  try {
    const outcome = await runNudge({
      provider: schedule.aux.provider,
      memory: schedule.memory,
      memoryTool: schedule.memoryTool,
      messages: recent,
      context,
      maxTokens: schedule.aux.model.maxTokens,
      observe: schedule.observe,
    })
    schedule.emit({
      type: 'nudge',
      sessionId: conversation.session.id,
      reviewed: recent.length,
      writes: outcome.writes,
      consolidate: outcome.consolidate,
      skipped: null,
    })
  } catch (error) {
    schedule.emit({
      type: 'nudge',
      sessionId: conversation.session.id,
      reviewed: recent.length,
      writes: 0,
      consolidate: false,
      skipped: error instanceof Error ? error.message : String(error),
    })
  }
}
