/**
 * Whether a final answer only reports what the turn's retrieval found ("I found nothing about … in past
 * conversations.", "From a past conversation: <the line it found>"): such a reply is the agent's echo of
 * its own search, stored as retrieval traffic (left out of search by default), not a new statement. The
 * test is of words: a reply that says at most MAX_OWN_WORDS words that neither the user's question nor the
 * turn's retrieval calls and results hold reports them; a reply with work of its own (an explanation, code,
 * a plan) says more, and stays evidence.
 */

/** Words of its own a reply may say and still only report a search. */
const MAX_OWN_WORDS = 12

// A Han character is a word of its own in CJK text, but about half of one in English terms.
const HAN = /\p{Script=Han}/u
const WORDS = /\p{Script=Han}|[\p{L}\p{N}]+/gu

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORDS) ?? []
}

/** Whether `reply` adds at most MAX_OWN_WORDS words to `sources` (the question, the calls, their results). */
export function onlyReports(reply: string, sources: readonly string[]): boolean {
  const known = new Set(sources.flatMap(wordsOf))
  let own = 0
  for (const word of wordsOf(reply)) {
    if (known.has(word)) continue
    own += HAN.test(word) ? 0.5 : 1
    if (own > MAX_OWN_WORDS) return false
  }
  return true
}
