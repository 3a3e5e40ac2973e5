/**
 * Generates eval/conversations-dataset.json (deterministic):
 * `npx tsx packages/core/eval/conversations/build-conversations.ts [out.json]`.
 *
 * 28 conversations (14 English, 14 Chinese) between two named participants, ten sessions each over
 * several simulated weeks. Each conversation states twelve facts drawn from templates-en.ts /
 * templates-zh.ts (every question kind), mixed into small talk and into noise lines that share the
 * facts' words; each fact yields one question labelled with the message(s) holding its answer.
 * Even-numbered conversations of each language form the 'tune' half, odd-numbered ones 'heldout'.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  type Conversation,
  type ConversationDataset,
  type ConversationLang,
  type ConversationQuestion,
  type QuestionKind,
  type SessionLine,
  sessionMessages,
} from './dataset.ts'
import type { FactTemplate, SmallTalk } from './templates.ts'
import { EN_FACTS, EN_NAMES, EN_SMALL_TALK } from './templates-en.ts'
import { ZH_FACTS, ZH_NAMES, ZH_SMALL_TALK } from './templates-zh.ts'

const DAY = 86_400_000
const SESSIONS = 10
const FACTS_PER_KIND: Partial<Record<QuestionKind, number>> = {
  single: 2,
  reply: 2,
  speaker: 2,
  when: 1,
  howlong: 1,
  date: 1,
  multi: 1,
  paraphrase: 2,
}

const SEED = 20261201
let seed = SEED
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1))
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T
function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[a[i], a[j]] = [a[j] as T, a[i] as T]
  }
  return a
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

function formatDate(ms: number, lang: ConversationLang): string {
  const d = new Date(ms)
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()]
  if (lang === 'zh') return pick([`${y}年${m}月${day}日`, `${m}月${day}日`, `${m}月${day}号`])
  const name = MONTHS[m - 1] as string
  const iso = `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`
  return pick([`${day} ${name} ${y}`, `${name} ${day}, ${y}`, iso, `${name} ${day}`])
}

type Values = Record<string, string>
const fill = (text: string, values: Values) =>
  text.replace(/\{(\w+)\}/g, (all, k: string) => values[k] ?? all)

function smallTalkLine(talk: SmallTalk, text: string): string {
  const values: Values = {}
  for (const [k, v] of Object.entries(talk.slots)) values[k] = pick(v)
  return fill(text, values)
}

function buildConversation(index: number, lang: ConversationLang, names: [string, string]) {
  const key = `${lang}-c${String(index + 1).padStart(2, '0')}`
  const facts = lang === 'en' ? EN_FACTS : ZH_FACTS
  const talk = lang === 'en' ? EN_SMALL_TALK : ZH_SMALL_TALK
  const blocks: SessionLine[][][] = Array.from({ length: SESSIONS }, () => [])
  const chosen: { template: FactTemplate; owner: 0 | 1; values: Values; sessions: number[] }[] = []
  for (const [kind, count] of Object.entries(FACTS_PER_KIND) as [QuestionKind, number][]) {
    const pool = shuffle(facts.filter((f) => f.kind === kind))
    for (const template of pool.slice(0, count)) {
      const owner = int(0, 1) as 0 | 1
      const values: Values = { A: names[owner], B: names[1 - owner] as string }
      for (const [k, v] of Object.entries(template.slots)) values[k] = pick(v)
      const first = template.say2 ? int(0, SESSIONS - 3) : int(0, SESSIONS - 1)
      const sessions = template.say2 ? [first, int(first + 2, SESSIONS - 1)] : [first]
      chosen.push({ template, owner, values, sessions })
    }
  }
  chosen.forEach(({ template: t, owner, values, sessions }, f) => {
    const other = (1 - owner) as 0 | 1
    const block: SessionLine[] = []
    if (t.lead) block.push({ speaker: other, text: fill(t.lead, values) })
    block.push({ speaker: owner, text: fill(t.say, values), answerOf: f })
    if (t.follow) block.push({ speaker: other, text: fill(t.follow, values) })
    blocks[sessions[0] as number]?.push(block)
    if (t.say2)
      blocks[sessions[1] as number]?.push([{ speaker: owner, text: fill(t.say2, values), answerOf: f }])
    if (t.other) {
      const theirs: Values = { ...values }
      for (const [k, v] of Object.entries(t.slots)) theirs[k] = pick(v.filter((x) => x !== values[k]))
      const s = (sessions[0] as number) + int(1, SESSIONS - 1)
      blocks[s % SESSIONS]?.push([{ speaker: other, text: fill(t.other, theirs) }])
    }
    for (const noise of t.noise ?? []) {
      // noise never shares the answer's session, so a date or a session cannot give the answer away
      const s = ((sessions[0] as number) + int(1, SESSIONS - 1)) % SESSIONS
      blocks[s]?.push([{ speaker: int(0, 1) as 0 | 1, text: fill(noise, values) }])
    }
  })

  const answers = new Map<number, string[]>()
  const sessionsOut: Conversation['sessions'] = []
  let day = Date.UTC(2023, 0, 9) + index * 19 * DAY
  let last = 0
  blocks.forEach((sessionBlocks, s) => {
    for (let n = int(16, 26); n > 0; n--)
      sessionBlocks.push([{ speaker: (n % 2) as 0 | 1, text: smallTalkLine(talk, pick(talk.lines)) }])
    const opener = int(0, 1) as 0 | 1
    const lines: SessionLine[] = [
      { speaker: opener, text: pick(talk.openers) },
      ...shuffle(sessionBlocks).flat(),
      { speaker: opener, text: pick(talk.closers) },
    ]
    day += int(2, 8) * DAY
    const messages = sessionMessages(
      `${key}-s${s + 1}`,
      lines,
      names,
      day + int(17, 21) * 3_600_000 + int(0, 59) * 60_000,
      () => int(40, 240) * 1000,
      answers,
    )
    last = messages.at(-1)?.timestamp ?? last
    sessionsOut.push({ key: `${key}-s${s + 1}`, messages })
  })

  const stamp = new Map(sessionsOut.flatMap((s) => s.messages.map((m) => [m.key, m.timestamp] as const)))
  const askedAt = last + 2 * DAY
  const questions: ConversationQuestion[] = chosen.map(({ template, values }, f) => {
    const keys = answers.get(f) ?? []
    const date = formatDate(stamp.get(keys[0] as string) ?? 0, lang)
    return {
      id: `${key}-q${String(f + 1).padStart(2, '0')}`,
      conversation: key,
      language: lang,
      kind: template.kind,
      question: fill(pick(template.ask), { ...values, date }),
      answers: keys,
      askedAt,
    }
  })
  const conversation: Conversation = {
    key,
    language: lang,
    split: index % 2 === 0 ? 'tune' : 'heldout',
    participants: names,
    sessions: sessionsOut,
  }
  return { conversation, questions }
}

/** The whole set, built deterministically in memory (a few hundred milliseconds). */
export function buildConversationDataset(): ConversationDataset {
  seed = SEED
  const dataset: ConversationDataset = {
    description:
      'Engram conversational retrieval set, generated by eval/conversations/build-conversations.ts: two named participants per conversation, ten sessions each, one question per stated fact labelled with the message(s) that hold the answer.',
    conversations: [],
    questions: [],
  }
  for (const [lang, pairs] of [
    ['en', EN_NAMES],
    ['zh', ZH_NAMES],
  ] as const) {
    pairs.forEach((names, i) => {
      const { conversation, questions } = buildConversation(i, lang, names)
      dataset.conversations.push(conversation)
      dataset.questions.push(...questions)
    })
  }
  return dataset
}

// Run directly (`tsx build-conversations.ts out.json`): writes the set to a file, to read or share it.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? 'conversations-dataset.json'
  const dataset = buildConversationDataset()
  writeFileSync(out, `${JSON.stringify(dataset, null, 1)}\n`)
  const messages = dataset.conversations.reduce(
    (a, c) => a + c.sessions.reduce((b, s) => b + s.messages.length, 0),
    0,
  )
  console.log(
    `wrote ${out}: ${dataset.conversations.length} conversations, ${messages} messages, ${dataset.questions.length} questions`,
  )
}
