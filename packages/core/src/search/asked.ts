/**
 * A question is weaker evidence than a statement of the same words: "上次说的发布窗口是什么时候？" shares every
 * word of the search it led to, the statement "我们决定把发布窗口改到周四下午。" only some. A search's message rows
 * keep their order among statements and among questions, statements first, so a question is shown only
 * below every statement that matched (and first when nothing else did). Read from the rows' own text the
 * search fetched anyway (the excerpt or snippet): no scan, no column.
 */
import type { HitRow } from '../store/search-sql.ts'

/** The longest turn read as a question: a long message that ends by asking states things on the way. */
const MAX_QUESTION_CHARS = 300

/** Whether a user or assistant turn is a question: short, and ending with a question mark. */
export function isAsked(role: string, text: string | null): boolean {
  if ((role !== 'user' && role !== 'assistant') || text === null) return false
  // the end before white space and the index's U+200B marks (CJK text is indexed with them)
  let end = text.length
  while (end > 0 && /[\s\u200b]/u.test(text[end - 1] as string)) end--
  const last = text[end - 1]
  if (last !== '?' && last !== '？') return false
  // only a text ending with a question mark has its characters counted (the marks are not characters)
  return end <= MAX_QUESTION_CHARS || text.slice(0, end).replaceAll('\u200b', '').length <= MAX_QUESTION_CHARS
}

/** The rows with the statements first, each group in its own order (stable). */
export function statementsFirst<T extends HitRow>(rows: readonly T[]): T[] {
  const statements: T[] = []
  const questions: T[] = []
  for (const row of rows) (isAsked(row.role, row.excerpt ?? row.snippet) ? questions : statements).push(row)
  return questions.length === 0 ? (rows as T[]) : [...statements, ...questions]
}
