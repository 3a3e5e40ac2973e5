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
