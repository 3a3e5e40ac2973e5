import { type CompressibleMessage, describeCall, indexToolCalls, textOf } from './messages.ts'
import { redactSecrets } from './redact.ts'
import { isSummaryMessage } from './summary.ts'
import { clipToTokens, type TokenCounter } from './tokens.ts'

const MAX_ACTIONS = 40
const MAX_ERRORS = 10
const MAX_FILES = 40
const MAX_ASK_CHARS = 1_000
const MAX_ERROR_LINE_CHARS = 200
/** Longer matches are runs of text that happen to hold a slash, not paths, and would swell the summary. */
const MAX_PATH_CHARS = 260

const ERROR_LINE = /\b(error|exception|traceback|failed|failure|fatal|panic|denied|not found)\b/i
const FILE_EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|json|md|py|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sql|toml|yaml|yml|sh|css|scss|html|vue|svelte|txt|lock|env'
/** Paths with a directory part, or bare file names with a familiar extension. */
const FILE_PATH = new RegExp(
  `(?<![\\w@/.-])(?:\\.{0,2}/)?(?:[\\w@.-]+/)+[\\w@.-]+\\.\\w+|(?<![\\w@/.-])[\\w@-]+(?:\\.[\\w-]+)*\\.(?:${FILE_EXTENSIONS})\\b`,
  'g',
)

function capped(items: readonly string[], max: number): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), `… and ${items.length - max} more`]
}

/** The first line of a local summary written because the summariser failed. */
const FALLBACK_INTRO =
  'Summary built locally because the summariser was unavailable: a list of facts, not an analysis.'

/**
 * A deterministic summary built locally from the turns being dropped, for when the summariser fails (or no
 * model may be asked, as when turns are cut to fit the window: `intro` then says so): the latest user ask,
 * the numbered tool actions, the errors seen and the file paths mentioned, after the previous summary when
 * there is one. Redacted and clipped to `maxTokens`.
 */
export function buildFallbackSummary(
  messages: readonly CompressibleMessage[],
  previousSummary: string | null,
  maxTokens: number,
  counter: TokenCounter,
  intro = FALLBACK_INTRO,
): string {
  const calls = indexToolCalls(messages)
  const turns = messages.filter((m) => !isSummaryMessage(m))
  const lastAsk = turns.findLast((m) => m.role === 'user')
  const actions = turns.flatMap((m) => (m.tool_calls ?? []).map((call) => describeCall(call)))
  const errors = new Set<string>()
  const files = new Set<string>()
  for (const message of turns) {
    const texts = [textOf(message), ...(message.tool_calls ?? []).map((c) => c.function.arguments)]
    for (const text of texts) {
      for (const path of text.match(FILE_PATH) ?? []) if (path.length <= MAX_PATH_CHARS) files.add(path)
    }
    if (message.role !== 'tool') continue
    const line = textOf(message)
      .split('\n')
      .find((l) => ERROR_LINE.test(l))
    if (line) {
      const source = describeCall(calls.get(message.tool_call_id ?? ''))
      errors.add(`${source}: ${line.trim().slice(0, MAX_ERROR_LINE_CHARS)}`)
    }
  }

  const sections = [intro]
  // Half the budget at most, so the new turns are not clipped away by an old summary.
  if (previousSummary)
    sections.push(`Earlier summary:\n${clipToTokens(counter, previousSummary, maxTokens / 2)}`)
  if (lastAsk) sections.push(`Latest user ask:\n${textOf(lastAsk).slice(0, MAX_ASK_CHARS)}`)
  if (actions.length > 0) {
    sections.push(
      `Actions:\n${capped(
        actions.map((a, i) => `${i + 1}. ${a}`),
        MAX_ACTIONS,
      ).join('\n')}`,
    )
  }
  if (errors.size > 0)
    sections.push(
      `Errors seen:\n${capped([...errors], MAX_ERRORS)
        .map((e) => `- ${e}`)
        .join('\n')}`,
    )
  if (files.size > 0) sections.push(`Files mentioned:\n${capped([...files], MAX_FILES).join(', ')}`)
  return clipToTokens(counter, redactSecrets(sections.join('\n\n')), maxTokens)
}
