/**
 * The growing corpus of the scale benchmark: realistic sessions (data.ts) of 1,000 messages, written
 * through the public API with one `appendMessages` call (one transaction) per session, so the store's
 * own encoder, INSERT and triggers build the file. Batches 20–39 all go to one session, `big`, which
 * then holds 20,000 messages for the restore measurement.
 */
import type { Store } from '../src/index.ts'
import { type GeneratedSession, Generator } from './data.ts'

export const PER_SESSION = 1000
export const BIG_SESSION = 'big'
export const BIG_SESSION_MESSAGES = 20 * PER_SESSION
const BIG_FROM_BATCH = 20

const sessionId = (batch: number) => `s-${batch.toString().padStart(5, '0')}`

/** The first `sessions` sessions the corpus will hold (the same generator and seed). */
export function corpusPrefix(seed: number, sessions: number): GeneratedSession[] {
  const g = new Generator(seed)
  return Array.from({ length: sessions }, (_, i) => g.session(sessionId(i), PER_SESSION))
}

export class Corpus {
  private readonly generator: Generator
  private batches = 0
  /** Bytes of message text and tool-call JSON written so far (what a user would call the payload). */
  payloadBytes = 0

  constructor(
    private readonly store: Store,
    seed: number,
  ) {
    this.generator = new Generator(seed)
  }

  get size(): number {
    return this.batches * PER_SESSION
  }

  /** The id of a complete 1,000-message session. */
  readonly sampleSession = sessionId(5)

  get hasBigSession(): boolean {
    return this.batches >= BIG_FROM_BATCH + BIG_SESSION_MESSAGES / PER_SESSION
  }

  /** Appends whole sessions until the corpus holds `messages` messages. */
  async growTo(messages: number, progress: (size: number) => void): Promise<void> {
    while (this.size < messages) {
      const b = this.batches
      const big = b >= BIG_FROM_BATCH && b < BIG_FROM_BATCH + BIG_SESSION_MESSAGES / PER_SESSION
      const id = big ? BIG_SESSION : sessionId(b)
      const session = this.generator.session(id, PER_SESSION)
      if (b === BIG_FROM_BATCH || !big) await this.store.createSession({ id, source: 'bench' })
      for (const m of session.messages) {
        this.payloadBytes += Buffer.byteLength(typeof m.content === 'string' ? m.content : '')
        if (m.tool_calls) this.payloadBytes += Buffer.byteLength(JSON.stringify(m.tool_calls))
      }
      await this.store.appendMessages(id, session.messages)
      this.batches++
      if (this.size % 50_000 === 0) progress(this.size)
    }
  }
}
