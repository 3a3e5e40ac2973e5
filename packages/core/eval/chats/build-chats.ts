/**
 * The chat set: conversations that behave like real multi-session chat between two people (built
 * deterministically in memory; `npx tsx packages/core/eval/chats/build-chats.ts` prints a summary).
 *
 * 12 English conversations between two named participants, 24 sessions each a few days to three weeks
 * apart, 16–26 short turns per session. Each conversation tells 18 of the events of events.ts (slots
 * drawn per conversation) amid small talk and noise lines that share the events' words; every question
 * of an event is labelled with its answer turns. What the template set (eval/conversations) lacks and
 * real chat has: the answer usually sits in the reply to the turn holding the question's words, turns
 * are short, questions name a participant and ask when, and open questions need two turns (`open`: both
 * turns of one exchange; `multi`: two exchanges in different sessions). Even-numbered conversations form
 * the 'tune' half, odd-numbered ones 'heldout'.
 */
import { fileURLToPath } from 'node:url'
import {
  type ConversationDataset,
  type ConversationQuestion,
  type SessionLine,
  sessionMessages,
} from '../conversations/dataset.ts'
import { CHAT_CLOSERS, CHAT_EVENTS, CHAT_FILLER, CHAT_NAMES, CHAT_OPENERS, type ChatLine } from './events.ts'

const DAY = 86_400_000
const SESSIONS = 24
const EVENTS = 18
const SEED = 20261202

/** One seeded generator per build, so building twice gives the same set. */
function random(seedValue: number) {
  let seed = seedValue
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
  const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1))
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T
  const shuffle = <T>(a: T[]): T[] => {
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[a[i], a[j]] = [a[j] as T, a[i] as T]
    }
    return a
  }
  return { int, pick, shuffle }
}

type Values = Record<string, string>
const fill = (text: string, values: Values) =>
  text.replace(/\{(\w+)\}/g, (all, k: string) => values[k] ?? all)

function buildChat(index: number, names: readonly [string, string], r: ReturnType<typeof random>) {
  const key = `chat-c${String(index + 1).padStart(2, '0')}`
  const blocks: SessionLine[][][] = Array.from({ length: SESSIONS }, () => [])
  const events = r.shuffle([...CHAT_EVENTS.keys()]).slice(0, EVENTS)
  const told = events.map((e, f) => {
    const event = CHAT_EVENTS[e] as (typeof CHAT_EVENTS)[number]
    const owner = r.int(0, 1) as 0 | 1
    const values: Values = { A: names[owner], B: names[1 - owner] as string }
    for (const [k, v] of Object.entries(event.slots)) values[k] = r.pick(v)
    const line = (l: ChatLine): SessionLine => ({
      speaker: l.by === 'owner' ? owner : ((1 - owner) as 0 | 1),
      text: fill(l.text, values),
      ...(l.answer ? { answerOf: f } : {}),
    })
    const first = r.int(0, event.parts.length > 1 ? SESSIONS - 4 : SESSIONS - 1)
    event.parts.forEach((part, p) => {
      const s = p === 0 ? first : r.int(first + 2, SESSIONS - 1)
      blocks[s]?.push(part.map(line))
    })
    for (const noise of event.noise ?? []) {
      const s = (first + r.int(1, SESSIONS - 1)) % SESSIONS
      blocks[s]?.push([{ speaker: r.int(0, 1) as 0 | 1, text: fill(noise, values) }])
    }
    return { event, values }
  })

  const answers = new Map<number, string[]>()
  const sessions: ConversationDataset['conversations'][number]['sessions'] = []
  let day = Date.UTC(2023, 4, 1) + index * 11 * DAY
  let last = 0
  blocks.forEach((sessionBlocks, s) => {
    const turns = sessionBlocks.reduce((n, block) => n + block.length, 0)
    for (let n = r.int(14, 24) - turns; n > 0; n--)
      sessionBlocks.push([{ speaker: (n % 2) as 0 | 1, text: r.pick(CHAT_FILLER) }])
    const opener = r.int(0, 1) as 0 | 1
    const values = { B: names[1 - opener] as string }
    const lines: SessionLine[] = [
      { speaker: opener, text: fill(r.pick(CHAT_OPENERS), values) },
      ...r.shuffle(sessionBlocks).flat(),
      { speaker: opener, text: r.pick(CHAT_CLOSERS) },
    ]
    day += r.int(3, 21) * DAY
    const messages = sessionMessages(
      `${key}-s${s + 1}`,
      lines,
      names,
      day + r.int(9, 20) * 3_600_000,
      () => r.int(20, 120) * 1000,
      answers,
    )
    last = messages.at(-1)?.timestamp ?? last
    sessions.push({ key: `${key}-s${s + 1}`, messages })
  })

  const askedAt = last + 3 * DAY
  const questions: ConversationQuestion[] = told.flatMap(({ event, values }, f) =>
    event.questions.map((q, n) => ({
      id: `${key}-q${f + 1}-${n + 1}`,
      conversation: key,
      language: 'en' as const,
      kind: event.kind,
      question: fill(q, values),
      answers: answers.get(f) ?? [],
      askedAt,
    })),
  )
  return {
    conversation: {
      key,
      language: 'en' as const,
      split: index % 2 === 0 ? ('tune' as const) : ('heldout' as const),
      participants: [names[0], names[1]] as [string, string],
      sessions,
    },
    questions,
  }
}

/** The whole chat set, built deterministically in memory. */
export function buildChatDataset(): ConversationDataset {
  const r = random(SEED)
  const dataset: ConversationDataset = {
    description:
      'Engram chat set, generated by eval/chats/build-chats.ts: long multi-session chats between two named participants, short turns, answers in replies, labelled evidence turns.',
    conversations: [],
    questions: [],
  }
  CHAT_NAMES.forEach((names, i) => {
    const { conversation, questions } = buildChat(i, names, r)
    dataset.conversations.push(conversation)
    dataset.questions.push(...questions)
  })
  return dataset
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const data = buildChatDataset()
  const turns = data.conversations.reduce(
    (a, c) => a + c.sessions.reduce((b, s) => b + s.messages.length, 0),
    0,
  )
  console.log(
    `${data.conversations.length} conversations, ${turns} turns, ${data.questions.length} questions`,
  )
  for (const q of data.questions.slice(0, 8)) console.log(q.kind, q.question, q.answers.join(' '))
  const s = data.conversations[0]?.sessions[3]
  for (const m of s?.messages ?? []) console.log(`  ${m.key} ${m.name}: ${m.content}`)
}
