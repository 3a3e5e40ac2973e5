import { DATE_LINE_START, MEMORY_SECTION_HEADING } from '../prompts/markers.ts'
import type { ToolSpec } from '../providers/types.ts'

const IDENTITY =
  'You are Engram, an AI assistant with a persistent memory: everything said in past sessions is stored and searchable, and a small curated memory of durable facts is shown to you below.'

const GUIDANCE: Record<string, string> = {
  memory:
    'memory: when the user tells you something worth keeping across sessions, save it, one short fact per entry: preferences and profile to target "user", environment, project facts and conventions to target "memory". Never save secrets.',
  session_search:
    'session_search: when the user refers to an earlier conversation ("last time", "what did I say about …", "上次…"), or earlier context would help, search past sessions and answer from what it returns; say so when nothing is found.',
}

/** `2026-12-01` in local time: the date, never the time, so the prompt stays the same all day. */
function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
}

/**
 * The system prompt of a new session: identity, guidance for each offered tool, the frozen memory snapshot
 * (MEMORY and USER blocks; writes made during the session show up in the next one) and today's date. Built
 * once per session and stored on it; a resumed session reuses the stored bytes so provider caches hit.
 */
export function buildSystemPrompt(input: {
  snapshotText: string
  tools: readonly ToolSpec[]
  now: Date
}): string {
  const tools = input.tools.map(
    (tool) =>
      `- ${GUIDANCE[tool.name] ?? `${tool.name}: ${tool.description.split('. ')[0]?.replace(/\.$/, '')}.`}`,
  )
  return [
    IDENTITY,
    tools.length ? `# Tools\n${tools.join('\n')}` : '',
    `${MEMORY_SECTION_HEADING}\n${input.snapshotText}`,
    `${DATE_LINE_START}${localDate(input.now)}.`,
  ]
    .filter(Boolean)
    .join('\n\n')
}

/**
 * The frozen memory snapshot inside a system prompt buildSystemPrompt made (empty when there is none), and
 * the rest of the prompt: what a viewer shows as "the memory block" and "the instructions".
 */
export function splitSystemPrompt(prompt: string): { memory: string; instructions: string } {
  const start = prompt.indexOf(`${MEMORY_SECTION_HEADING}\n`)
  if (start < 0) return { memory: '', instructions: prompt }
  const bodyStart = start + MEMORY_SECTION_HEADING.length + 1
  const end = prompt.lastIndexOf(`\n\n${DATE_LINE_START}`)
  const bodyEnd = end > bodyStart ? end : prompt.length
  return {
    memory: prompt.slice(bodyStart, bodyEnd),
    instructions: prompt.slice(0, start) + prompt.slice(bodyEnd).replace(/^\n\n/, ''),
  }
}
