import { bpeTokenCounter, clipToTokens, SUMMARY_SECTIONS, type SummaryRequest } from '@engram/compressor'
import { ENVIRONMENT, PREFERENCE } from '../prompts/fact-kinds.ts'
import { clip, parseTranscript, type TranscriptTurn, tagged } from './offline-text.ts'

/** Whether a system prompt is the compressor's summary instructions (it lists every section heading). */
export function isSummaryInstruction(system: string): boolean {
  return SUMMARY_SECTIONS.every((title) => system.includes(`## ${title}`))
}

const FILE =
  /(?:^|[\s"'`(])((?:\.{0,2}\/)?[\w@-]+(?:\/[\w@.-]+)*\.(?:ts|tsx|js|mjs|json|toml|ya?ml|md|py|go|rs|sql|sh|env|db))\b/g
const MAX_ITEMS = 12

/** The bullets under each `## Section` of an earlier summary. */
function previousSections(previous: string | null): Map<string, string[]> {
  const sections = new Map<string, string[]>()
  let current: string[] | null = null
  for (const line of (previous ?? '').split('\n')) {
    if (line.startsWith('## ')) {
      current = []
      sections.set(line.slice(3).trim(), current)
    } else if (current && line.startsWith('- ')) current.push(line.slice(2))
  }
  return sections
}

const unique = (items: string[]) => [...new Set(items)]
const isQuestion = (text: string) => /[?？]\s*$/.test(text)

function sectionItems(turns: TranscriptTurn[]): Record<(typeof SUMMARY_SECTIONS)[number], string[]> {
  const user = turns.filter((t) => t.label === 'user').map((t) => t.text)
  const assistant = turns.filter((t) => t.label === 'assistant').map((t) => t.text)
  const statements = user.filter((text) => !isQuestion(text))
  const lastUser = user.at(-1)
  return {
    Goal: user[0] ? [clip(user[0], 200)] : [],
    'Constraints and preferences': statements.filter((t) => PREFERENCE.test(t)).map((t) => clip(t, 160)),
    'Completed actions': turns
      .filter((t) => t.label.startsWith('assistant calls '))
      .map((t) => `called ${t.label.slice('assistant calls '.length)} ${clip(t.text, 100)}`),
    'Current state': assistant.at(-1) ? [clip(assistant.at(-1) as string, 200)] : [],
    Decisions: [],
    'Open questions': lastUser && isQuestion(lastUser) ? [clip(lastUser, 160)] : [],
    'Relevant files': unique(turns.flatMap((t) => [...t.text.matchAll(FILE)].map((m) => m[1] as string))),
    'Critical context': statements
      .filter((t) => ENVIRONMENT.test(t) || !PREFERENCE.test(t))
      .map((t) => clip(t, 160)),
  }
}

/**
 * A structured summary written without a model, for the offline model: the compressor's sections in order,
 * filled from the transcript (first request as the goal, preference statements, tool calls made, the last
 * answer, file paths, every other user statement as critical context) and merged with the previous
 * summary's bullets; the newest items are kept when a section is full. Deterministic, within `maxTokens`.
 */
export function offlineSummary(request: Pick<SummaryRequest, 'prompt' | 'maxTokens'>): string {
  const turns = parseTranscript(tagged(request.prompt, 'conversation') ?? request.prompt)
  const previous = previousSections(tagged(request.prompt, 'previous-summary'))
  const fresh = sectionItems(turns)
  const text = SUMMARY_SECTIONS.map((title) => {
    const items = unique([...(previous.get(title) ?? []), ...fresh[title]]).slice(-MAX_ITEMS)
    return `## ${title}\n${items.length ? items.map((item) => `- ${item}`).join('\n') : 'None'}`
  }).join('\n\n')
  return clipToTokens(bpeTokenCounter, text, request.maxTokens)
}
