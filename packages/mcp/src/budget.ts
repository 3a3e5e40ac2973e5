import { bpeTokenCounter, clipToTokens, type TokenCounter } from '@engram/compressor'

/**
 * The bounds of tool results, in tokens of the project's BPE counter, counted on the text the model reads
 * (the `text` content; `structuredContent` carries the same data as fields). One place for each default.
 */
export const BUDGETS = {
  /** session_search: the agent tool's own default budget (it is what the agent tool enforces). */
  search: 1_000,
  /** session_read: one page of a transcript. */
  read: 2_000,
  /** sessions_list: one page of sessions. */
  list: 1_000,
  /** One message inside a session_read page. */
  message: 300,
  /** The prompt's recent-context part (the memory block is bounded by the files' caps). */
  promptContext: 1_000,
} as const

/** The most characters one BPE token spans in practice; text is cut to this before it is counted. */
const MAX_CHARS_PER_TOKEN = 16

/** Counts and clips text; clipping cuts long text by characters first so a 2 MB message costs no more than a short one. */
export class Budget {
  constructor(readonly counter: TokenCounter = bpeTokenCounter) {}

  count(text: string): number {
    return this.counter.countText(text)
  }

  /** `text`, or its start within `tokens` ending with `…`. Linear in `min(text.length, tokens × 16)`. */
  clip(text: string, tokens: number): string {
    const head =
      text.length > tokens * MAX_CHARS_PER_TOKEN ? text.slice(0, tokens * MAX_CHARS_PER_TOKEN) : text
    const clipped = clipToTokens(this.counter, head, tokens)
    return clipped === head && head !== text ? clipToTokens(this.counter, `${head}…`, tokens) : clipped
  }
}
