/** The shape of `search-dataset.json`, shared by its generator and the harness. */
export type Lang = 'en' | 'zh' | 'ja' | 'ko'

export interface DatasetMessage {
  key: string
  role: 'user' | 'assistant'
  content: string
}

export interface DatasetSession {
  key: string
  language: Lang
  title: string
  messages: DatasetMessage[]
}

export interface DatasetQuery {
  id: string
  language: Lang
  kind: 'verbatim' | 'word' | 'identifier' | 'stem' | 'natural'
  query: string
  /** CJK: characters of the query; English: words. */
  length: number
  /** Keys of the messages that should be found. */
  relevant: string[]
}

export interface Dataset {
  sessions: DatasetSession[]
  queries: DatasetQuery[]
}
