/**
 * Conversation-aware ranking of message candidates (pure: the store fetches, this orders).
 *
 * A candidate's own relevance is its BM25 score divided by the best one, so every weight below is
 * relative. On top of it:
 * - windows: each candidate centres a window (itself and up to two messages on either side, as far as
 *   the candidates reach: the matches and the two messages on either side of each); a message also scores
 *   WINDOW × its window's BM25 over the question's words (window-words.ts), divided by the best window's, so
 *   a turn between those holding the question's words ranks with them, and a window holding several of
 *   the words in different turns scores as one text would. Chosen on the LoCoMo dev tune conversations
 *   (2026-12-04, docs/benchmarks.md#locomo-pnpm-evallocomo): a plain BM25 over five-message windows beside
 *   each turn's own measured R@5 66.5 against 63.5 for three-message windows, and this ranking took tune
 *   69.7 / 76.5 to 71.9 / 80.1; the windows before summed their three members' own scores, capped at 1.
 *   (An FTS5 index of the windows was measured and dropped: no recall added on LoCoMo dev, ~211 bytes per
 *   message; docs/decisions/window-index.md.)
 * - replies: when the message before it asks something (holds a question mark, `?` or `？`) and another
 *   speaker wrote it (by `name`, else by role), a message receives REPLY × that question's score: the answer to
 *   a matching question is what the question is about ("What did you take away from it?" → "It taught
 *   me self-acceptance…"). It replaced a share (0.3) of the previous message's score given after any
 *   message, which added nothing beside it; both chosen on the LoCoMo dev tune conversations, as was
 *   WINDOW (docs/benchmarks.md#locomo-pnpm-evallocomo);
 * - participants: when the query names a speaker (the OpenAI `name` field), that speaker's messages
 *   are multiplied by 1 + PARTICIPANT: a hint, never a filter. A question can name the wrong person
 *   ("What did Caroline paint?" when Melanie did: LoCoMo's adversarial questions); at 0.5 those fell to
 *   R@5 44 on the LoCoMo dev tune conversations, at 0 single-hop fell 7 points; 0.15 (the best tune R@5)
 *   was chosen on the tune conversations only (docs/benchmarks.md#locomo-pnpm-evallocomo);
 * - time: for "when / how long" questions, messages holding a time expression are multiplied by 1 + TIME;
 * - dates: messages written on a day the query names are multiplied by 1 + DATE.
 * - statements: a question ranks below every statement that matched, keywords and questions alike
 *   (asked.ts; applied by search.ts to the rows of either path).
 * (A session prior — a share of the session's summed scores — was measured and did not help: not kept.)
 */
import { hasTimeExpression, type TimeRange } from './time-words.ts'
import { wordCounter } from './window-words.ts'

/** The techniques, each of which can be turned off (for evaluation: `SearchOptions.ranking`). */
export const RANK_FEATURES = [
  'questionWords',
  'windows',
  'replies',
  'participants',
  'time',
  'dates',
  'statements',
] as const

export type RankFeatures = Record<(typeof RANK_FEATURES)[number], boolean>

export const ALL_RANK_FEATURES: Readonly<RankFeatures> = {
  questionWords: true,
  windows: true,
  replies: true,
  participants: true,
  time: true,
  dates: true,
  statements: true,
}

const WINDOW = 1
const REPLY = 1
const PARTICIPANT = 0.15
const TIME = 0.5
const DATE = 1

export interface Candidate {
  id: number
  sessionId: string
  /** BM25 relevance (higher is better); 0 for a neighbour that did not match. */
  relevance: number
  prev: number | null
  next: number | null
  name: string | null
  role: string
  content: string | null
  /** Its text asks something (a question mark in its first characters): its reply answers it. */
  asks: boolean
  timestamp: number
}

export interface Question {
  /** The query as the user wrote it. */
  text: string
  /** The words the windows count (window-words.ts {@link windowWords}). */
  words: readonly string[]
  timeQuestion: boolean
  ranges: readonly TimeRange[]
}

const LATIN_NAME_CHAR = /[\p{L}\p{N}]/u

/** Whether the query names `name`: as a whole word for alphabetic names, as a substring for CJK ones. */
export function namesParticipant(query: string, name: string): boolean {
  const q = query.toLowerCase()
  const n = name.toLowerCase().trim()
  if (n.length === 0) return false
  for (let at = q.indexOf(n); at >= 0; at = q.indexOf(n, at + 1)) {
    const before = q[at - 1]
    const after = q[at + n.length]
    const cjk = /[\u3400-\u9fff\uac00-\ud7af\u3040-\u30ff]/.test(n)
    if (cjk || ((!before || !LATIN_NAME_CHAR.test(before)) && (!after || !LATIN_NAME_CHAR.test(after))))
      return true
  }
  return false
}

/** Whether `c` replies to `before`: a question of another speaker (by name, else by role). */
const answers = (c: Candidate, before: Candidate | undefined): boolean =>
  before?.asks === true && (before.name ?? before.role) !== (c.name ?? c.role)

/** The candidates ordered best first, with their final scores. Linear in the candidates (and their text). */
export function rankCandidates(
  candidates: ReadonlyMap<number, Candidate>,
  question: Question,
  features: RankFeatures,
): { id: number; score: number }[] {
  let best = 0
  for (const c of candidates.values()) best = Math.max(best, c.relevance)
  const own = (id: number | null) => (id === null ? 0 : (candidates.get(id)?.relevance ?? 0) / (best || 1))

  const window = features.windows ? windowScores(candidates, question.words) : new Map<number, number>()
  const named = new Set<string>()
  if (features.participants) {
    for (const c of candidates.values()) {
      if (c.name !== null && !named.has(c.name) && namesParticipant(question.text, c.name)) named.add(c.name)
    }
  }

  const ranked: { id: number; score: number }[] = []
  for (const c of candidates.values()) {
    let score = own(c.id) + WINDOW * (window.get(c.id) ?? 0)
    if (features.replies && c.prev !== null && answers(c, candidates.get(c.prev)))
      score += REPLY * own(c.prev)
    if (c.name !== null && named.has(c.name)) score *= 1 + PARTICIPANT
    if (features.time && question.timeQuestion && c.content !== null && hasTimeExpression(c.content))
      score *= 1 + TIME
    if (features.dates && question.ranges.some((r) => c.timestamp >= r.from && c.timestamp < r.to))
      score *= 1 + DATE
    if (score > 0) ranked.push({ id: c.id, score })
  }
  return ranked.sort((a, b) => b.score - a.score || a.id - b.id)
}

/** Messages on either side of a candidate that its window holds. */
const WINDOW_RADIUS = 2
/** BM25's constants, as FTS5 has them. */
const K1 = 1.2
const B = 0.75

/**
 * Each candidate's window (itself and up to {@link WINDOW_RADIUS} messages on either side, as far as the
 * candidates reach) scored by BM25 over the windows' words, divided by the best window's: a window holding
 * the question's words across several turns scores as one text would. Document frequencies are those of
 * the candidates' windows. Linear in the candidates' text.
 */
function windowScores(
  candidates: ReadonlyMap<number, Candidate>,
  words: readonly string[],
): Map<number, number> {
  const scores = new Map<number, number>()
  if (words.length === 0) return scores
  const count = wordCounter(words)
  const own = new Map<number, { counts: number[]; length: number }>()
  for (const c of candidates.values()) own.set(c.id, count(c.content ?? ''))
  const windows: { id: number; counts: number[]; length: number }[] = []
  for (const c of candidates.values()) {
    const members = [c]
    for (const side of ['prev', 'next'] as const) {
      let at: Candidate | undefined = c
      for (let step = 0; step < WINDOW_RADIUS; step++) {
        const id: number | null | undefined = at?.[side]
        at = id == null ? undefined : candidates.get(id)
        if (at === undefined) break
        members.push(at)
      }
    }
    const counts = new Array<number>(words.length).fill(0)
    let length = 0
    for (const member of members) {
      const held = own.get(member.id) as { counts: number[]; length: number }
      length += held.length
      held.counts.forEach((count, i) => {
        counts[i] = (counts[i] as number) + count
      })
    }
    windows.push({ id: c.id, counts, length })
  }
  const documents = new Array<number>(words.length).fill(0)
  let total = 0
  for (const w of windows) {
    total += w.length
    w.counts.forEach((count, i) => {
      if (count > 0) documents[i] = (documents[i] as number) + 1
    })
  }
  const average = total / windows.length || 1
  const idf = documents.map((n) => Math.log((windows.length - n + 0.5) / (n + 0.5) + 1))
  let best = 0
  for (const w of windows) {
    let score = 0
    w.counts.forEach((count, i) => {
      if (count > 0)
        score += ((idf[i] as number) * count * (K1 + 1)) / (count + K1 * (1 - B + (B * w.length) / average))
    })
    if (score > 0) scores.set(w.id, score)
    best = Math.max(best, score)
  }
  for (const [id, score] of scores) scores.set(id, score / best)
  return scores
}
