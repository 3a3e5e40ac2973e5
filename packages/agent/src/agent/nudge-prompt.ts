import { buildSummaryRequest } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import { CONSOLIDATE_MARKER, NUDGE_MARKER } from '../prompts/markers.ts'

/** The instructions of the review run: distil durable facts with the memory tool, consolidate when asked. */
export function nudgeSystemPrompt(snapshotText: string, consolidate: boolean): string {
  return [
    'You review an AI assistant’s recent work and keep its long-term memory files useful. You have one tool, `memory`.',
    'Save only durable, reusable facts that are not already in the files: facts about the environment and configuration (target "memory") and the user’s preferences and profile (target "user"). One short fact per entry.',
    'Do not save temporary debugging details, secrets, or anything the files already say. If nothing is worth saving, answer "nothing to save" without calling the tool.',
    consolidate
      ? `${CONSOLIDATE_MARKER} The files are nearly full: consolidate first, with one batch per file that merges related entries and removes stale ones (operations: replace/remove, then add).`
      : '',
    `The memory files now:\n${snapshotText}`,
  ]
    .filter(Boolean)
    .join('\n\n')
}

/** The review's one user message: the marker and a redacted, clipped transcript of the recent turns. */
export function nudgeUserMessage(messages: readonly ChatMessage[], maxTokens: number): string {
  const { prompt } = buildSummaryRequest(messages, null, maxTokens)
  return `${NUDGE_MARKER}\nThe recent turns:\n\n${prompt}`
}
