/** The shape of `conversations-dataset.json`, shared by its generator and the harness. */
export type ConversationLang = 'en' | 'zh'

/**
 * single: a fact stated once; reply: the answer is the reply to the turn holding the question's words;
 * speaker: both participants state a parallel fact and the question names one; when / howlong: time
 * questions; date: the question names the day of the answer; multi: the answer spans two sessions;
 * paraphrase: the question shares few words with the answer.
 */
export type QuestionKind =
  | 'single'
  | 'reply'
  | 'speaker'
  | 'when'
  | 'howlong'
  | 'date'
  | 'multi'
  | 'paraphrase'
  | 'open'

export interface ConversationMessage {
  key: string
  /** The participant who speaks (the OpenAI `name` field). */
  name: string
  role: 'user' | 'assistant'
  content: string
  /** Milliseconds since the epoch. */
  timestamp: number
}

interface ConversationSession {
  key: string
  messages: ConversationMessage[]
}

export interface Conversation {
  key: string
  language: ConversationLang
  /** Conversations are split by key, never by question: 'tune' is the half parameters may be tuned on. */
  split: 'tune' | 'heldout'
  participants: [string, string]
  sessions: ConversationSession[]
}

export interface ConversationQuestion {
  id: string
  conversation: string
  language: ConversationLang
  kind: QuestionKind
  question: string
  /** Keys of the messages that hold the answer. */
  answers: string[]
  /** The moment the question is asked (after the conversation's last session). */
  askedAt: number
}

export interface ConversationDataset {
  description: string
  conversations: Conversation[]
  questions: ConversationQuestion[]
}

/** A line of a session before it is timed: who says it and, for an answer, the fact it belongs to. */
export interface SessionLine {
  speaker: 0 | 1
  text: string
  /** The fact (or event) whose answer this line holds. */
  answerOf?: number
}

/**
 * A session's lines as timed messages (keys `<session>-m<n>`, speaker 0 the user), each `gap()` ms after
 * the one before from `start`, and the keys of each fact's answers added to `answers`.
 */
export function sessionMessages(
  session: string,
  lines: readonly SessionLine[],
  names: readonly [string, string],
  start: number,
  gap: () => number,
  answers: Map<number, string[]>,
): ConversationMessage[] {
  let time = start
  return lines.map((line, m) => {
    time += gap()
    const message: ConversationMessage = {
      key: `${session}-m${m + 1}`,
      name: names[line.speaker],
      role: line.speaker === 0 ? 'user' : 'assistant',
      content: line.text,
      timestamp: time,
    }
    if (line.answerOf !== undefined)
      answers.set(line.answerOf, [...(answers.get(line.answerOf) ?? []), message.key])
    return message
  })
}
