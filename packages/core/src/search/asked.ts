/**
 * What was said outranks what was said about it. A search's message rows keep their order within three
 * groups, shown in this order:
 * 1. statements;
 * 2. echoes: a turn that quotes, word for word, an earlier hit of its own session ("Noted: "we moved the
 *    release window to Thursday"" after the turn that said it) and matches the search only inside the
 *    quote — the quote is not a second source (a turn that quotes and then says more of the searched words
 *    is a statement);
 * 3. questions that sent the agent searching (the next message of their session is retrieval traffic):
 *    "上次说的发布窗口是什么时候？" shares every word of the search it led to, the statement "我们决定把发布窗口改到
 *    周四下午。" only some, yet the statement is the answer. A question the conversation answered ("How do I
 *    roll back the deployment?" before the reply that says how) stays where it ranks: it is often the
 *    only turn holding the topic's words, and leads to its answer.
 * So an echo or a question is shown only below every statement that matched, and first when nothing else
 * did. Read from the rows' own text the search fetched anyway (the excerpt or snippet): no scan, no column.
 */
import type { HitRow } from '../dialects/dialect.ts'
import { stripIndexMarks } from './cjk.ts'

/** The longest turn read as a question: a long message that ends by asking states things on the way. */
const MAX_QUESTION_CHARS = 300
/** The shortest text whose quote makes an echo ("ok", "thanks" are quoted everywhere). */
const MIN_QUOTED_CHARS = 12

const textOf = (row: HitRow) => row.excerpt ?? row.snippet

/** The rows that are questions (isAsked), the candidates for group 3. */
export const askedRows = <T extends HitRow>(rows: readonly T[]): T[] =>
  rows.filter((row) => isAsked(row.role, textOf(row)))

/** Whether a user or assistant turn is a question: short, and ending with a question mark. */
function isAsked(role: string, text: string | null): boolean {
  if ((role !== 'user' && role !== 'assistant') || text === null) return false
  // the end before white space and the index's U+200B marks (CJK text is indexed with them)
  let end = text.length
  while (end > 0 && /[\s\u200b]/u.test(text[end - 1] as string)) end--
  const last = text[end - 1]
  if (last !== '?' && last !== '？') return false
  // only a text ending with a question mark has its characters counted (those of its text, not of its pairs)
  return end <= MAX_QUESTION_CHARS || stripIndexMarks(text.slice(0, end)).length <= MAX_QUESTION_CHARS
}

/**
 * The rows that quote an earlier row of their session among `rows` (compared without index marks) and hold
 * none of the search's `words` (lower case) outside the quote.
 */
function echoes<T extends HitRow>(rows: readonly T[], words: readonly string[]): Set<T> {
  const bySession = new Map<string, T[]>()
  for (const row of rows) {
    const list = bySession.get(row.session_id)
    if (list) list.push(row)
    else bySession.set(row.session_id, [row])
  }
  const out = new Set<T>()
  for (const list of bySession.values()) {
    if (list.length < 2) continue
    const texts = list.map((row) => stripIndexMarks(textOf(row) ?? '').trim())
    list.forEach((row, i) => {
      if (row.role !== 'user' && row.role !== 'assistant') return
      const own = texts[i] as string
      const quotes = list.some((earlier, j) => {
        const quoted = texts[j] as string
        if (earlier.item_id >= row.item_id || quoted.length < MIN_QUOTED_CHARS || own.length <= quoted.length)
          return false
        const at = own.indexOf(quoted)
        if (at < 0) return false
        const rest = `${own.slice(0, at)}\n${own.slice(at + quoted.length)}`.toLowerCase()
        return !words.some((word) => rest.includes(word))
      })
      if (quotes) out.add(row)
    })
  }
  return out
}

/**
 * The rows as statements, then echoes, then the questions of `searched` (ids of askedRows that sent the
 * agent searching), each group in its own order (stable), and how
 * many statements lead.
 */
export function statementsFirst<T extends HitRow>(
  rows: readonly T[],
  words: readonly string[],
  searched: ReadonlySet<number>,
): { rows: T[]; statements: number } {
  const echoed = echoes(rows, words)
  const statements: T[] = []
  const quoting: T[] = []
  const questions: T[] = []
  for (const row of rows) {
    if (searched.has(row.item_id)) questions.push(row)
    else if (echoed.has(row)) quoting.push(row)
    else statements.push(row)
  }
  return {
    rows: statements.length === rows.length ? (rows as T[]) : [...statements, ...quoting, ...questions],
    statements: statements.length,
  }
}

const NONE: ReadonlySet<number> = new Set()

/**
 * The rows with statements first when no question row sent the agent searching, or null when which of
 * them did (the `searched` of statementsFirst, one read) could change the first `take` rows or whether
 * `take` statements lead. When even every question row ranked last leaves both as they are, no subset of
 * them can change either: those rows are the first `take` that are neither echoes nor questions.
 */
export function orderWithoutSearched<T extends HitRow>(
  rows: readonly T[],
  words: readonly string[],
  take: number,
): { rows: T[]; statements: number } | null {
  const kept = statementsFirst(rows, words, NONE)
  const asked = askedRows(rows)
  if (asked.length === 0) return kept
  const last = statementsFirst(rows, words, new Set(asked.map((row) => row.item_id)))
  const same = last.statements >= take && kept.rows.slice(0, take).every((row, i) => row === last.rows[i])
  return same ? kept : null
}
