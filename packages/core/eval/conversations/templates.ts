import type { QuestionKind } from './dataset.ts'

/**
 * One fact a participant states, and the questions that ask for it. Strings may hold {A} (the
 * participant the fact is about), {B} (the other participant), {date} (questions only: the day the
 * fact was stated) and slot names; a slot takes one value for the whole fact.
 */
export interface FactTemplate {
  kind: QuestionKind
  slots: Record<string, string[]>
  /** Said by the other participant just before (for 'reply': the turn holding the question's words). */
  lead?: string
  /** The answer, said by {A}. */
  say: string
  /** Said by the other participant just after. */
  follow?: string
  /** 'multi': the second half of the answer, said by {A} in a later session. */
  say2?: string
  /** 'speaker': the parallel statement of the other participant, with another slot value. */
  other?: string
  ask: string[]
  /** Small talk that shares the fact's words but does not answer the question. */
  noise?: string[]
}

export interface SmallTalk {
  openers: string[]
  lines: string[]
  closers: string[]
  slots: Record<string, string[]>
}
