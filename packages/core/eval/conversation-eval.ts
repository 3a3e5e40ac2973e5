/**
 * Conversational retrieval harness for `store.search`: natural-language questions about past sessions.
 *
 *   npx tsx packages/core/eval/conversation-eval.ts [--json] [--driver=better-sqlite3|libsql] [--verbose]
 *   npx tsx packages/core/eval/conversation-eval.ts --techniques   the per-technique table (both halves)
 *   ... --set=chats   the chat set (eval/chats/build-chats.ts) instead of the template conversations
 *
 * Builds the conversation set (eval/conversations/build-conversations.ts) and loads it into a fresh store (temp SQLite file, public API only): one
 * user per conversation, one session per conversation session, every message with its speaker in the
 * OpenAI `name` field and its real timestamp. Each question is searched as it is written, scoped to
 * its conversation's user, with `now` set to the moment it is asked. Prints recall@5/@10/@25 and MRR
 * per split (tune / heldout), question kind and language, and the latency per query.
 * Recall@k is the share of a question's answer messages in the top k; MRR uses the first one in the top 25.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openStore, type SearchOptions, type Store } from '../src/index.ts'
import { RANK_FEATURES, type RankFeatures } from '../src/search/rank.ts'
import { searchWithRanking } from '../src/store/evaluation.ts'
import { buildChatDataset } from './chats/build-chats.ts'
import { buildConversationDataset } from './conversations/build-conversations.ts'
import type { ConversationDataset, ConversationQuestion } from './conversations/dataset.ts'

const K = [5, 10, 25] as const

export interface QuestionResult {
  question: ConversationQuestion
  split: 'tune' | 'heldout'
  found: string[]
  recall: Record<(typeof K)[number], number>
  rr: number
  ms: number
}

export interface Summary {
  group: string
  questions: number
  recall5: number
  recall10: number
  recall25: number
  mrr: number
}

/** The conversation set, generated in memory (deterministic; no copy is kept in the repository). */
export const conversationData = (): ConversationDataset => buildConversationDataset()

/** The evaluation sets by name (`--set=`): the template conversations and the real-chat-like chats. */
const SETS = { conversations: conversationData, chats: buildChatDataset } as const

export function summarize(group: string, rs: readonly QuestionResult[]): Summary {
  const mean = (f: (r: QuestionResult) => number) => rs.reduce((a, r) => a + f(r), 0) / (rs.length || 1)
  return {
    group,
    questions: rs.length,
    recall5: mean((r) => r.recall[5]),
    recall10: mean((r) => r.recall[10]),
    recall25: mean((r) => r.recall[25]),
    mrr: mean((r) => r.rr),
  }
}

/** Writes every conversation into the store (one session each, messages in one batch); message id → key. */
export async function loadConversations(
  store: Store,
  data: ConversationDataset,
): Promise<Map<number, string>> {
  const keyById = new Map<number, string>()
  for (const c of data.conversations) {
    for (const s of c.sessions) {
      const session = await store.createSession({ source: 'chat', userId: c.key, title: s.key })
      const stored = await store.appendMessages(
        session.id,
        s.messages.map((m) => ({ role: m.role, name: m.name, content: m.content, timestamp: m.timestamp })),
      )
      for (const [i, m] of stored.entries()) keyById.set(m.id, s.messages[i]?.key as string)
    }
  }
  return keyById
}

/** Asks every question as written, under its conversation's user at the time it is asked, and scores the hits. */
export async function askQuestions(
  store: Store,
  data: ConversationDataset,
  keyById: ReadonlyMap<number, string>,
  ranking?: Partial<RankFeatures>,
): Promise<QuestionResult[]> {
  const results: QuestionResult[] = []
  const split = new Map(data.conversations.map((c) => [c.key, c.split]))
  for (const q of data.questions) {
    const started = performance.now()
    const options: SearchOptions = {
      userId: q.conversation,
      limit: K[K.length - 1],
      includeEpisodes: false,
      now: q.askedAt,
    }
    const hits = ranking
      ? await searchWithRanking(store, q.question, options, ranking)
      : await store.search(q.question, options)
    const ms = performance.now() - started
    const found = hits.flatMap((h) =>
      h.kind === 'message' ? [keyById.get(h.messageId) ?? `?${h.messageId}`] : [],
    )
    const answers = new Set(q.answers)
    const at = (k: number) => found.slice(0, k).filter((key) => answers.has(key)).length / answers.size
    const first = found.findIndex((key) => answers.has(key))
    results.push({
      question: q,
      split: split.get(q.conversation) ?? 'tune',
      found,
      recall: { 5: at(5), 10: at(10), 25: at(25) },
      rr: first < 0 ? 0 : 1 / (first + 1),
      ms,
    })
  }
  return results
}

/** Loads the dataset into a new SQLite store in a temp folder and answers every question; removes the folder. */
export async function runConversationEval(
  data: ConversationDataset,
  driver?: 'better-sqlite3' | 'libsql',
  ranking?: Partial<RankFeatures>,
): Promise<{ results: QuestionResult[]; loadMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-conversation-eval-'))
  const url = join(dir, 'eval.db')
  const store = await openStore(driver ? { url, driver } : { url })
  try {
    const t0 = performance.now()
    const keyById = await loadConversations(store, data)
    const loadMs = performance.now() - t0
    return { results: await askQuestions(store, data, keyById, ranking), loadMs }
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The table rows: per split, then per split × kind and per split × language. */
export function conversationTable(results: readonly QuestionResult[]): Summary[] {
  const rows: Summary[] = []
  const kinds = [...new Set(results.map((r) => r.question.kind))]
  for (const split of ['tune', 'heldout'] as const) {
    const rs = results.filter((r) => r.split === split)
    rows.push(summarize(split, rs))
    for (const kind of kinds)
      rows.push(
        summarize(
          `  ${split} ${kind}`,
          rs.filter((r) => r.question.kind === kind),
        ),
      )
    for (const lang of ['en', 'zh'] as const)
      rows.push(
        summarize(
          `  ${split} ${lang}`,
          rs.filter((r) => r.question.language === lang),
        ),
      )
  }
  rows.push(summarize('overall', results))
  return rows
}

function latency(results: readonly QuestionResult[]) {
  const ms = results.map((r) => r.ms).sort((a, b) => a - b)
  const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0
  return { meanMs: ms.reduce((a, b) => a + b, 0) / (ms.length || 1), medianMs: at(0.5), p95Ms: at(0.95) }
}

async function main() {
  const args = process.argv.slice(2)
  const driverArg = args.find((a) => a.startsWith('--driver='))?.slice('--driver='.length)
  const driver = driverArg === 'libsql' || driverArg === 'better-sqlite3' ? driverArg : undefined
  const setArg = args.find((a) => a.startsWith('--set='))?.slice('--set='.length) ?? 'conversations'
  if (!(setArg in SETS)) throw new Error(`--set=${setArg}: use --set=conversations or --set=chats`)
  const data = SETS[setArg as keyof typeof SETS]()
  if (args.includes('--techniques')) return techniqueTable(data, driver)
  const { results, loadMs } = await runConversationEval(data, driver)
  const table = conversationTable(results)
  const lat = latency(results)
  const messages = data.conversations.reduce(
    (a, c) => a + c.sessions.reduce((b, s) => b + s.messages.length, 0),
    0,
  )
  if (args.includes('--json')) {
    process.stdout.write(
      `${JSON.stringify({ driver: driver ?? 'default', messages, loadMs, latency: lat, table }, null, 2)}\n`,
    )
    return
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7)
  console.log(
    `conversation eval: ${data.conversations.length} conversations, ${messages} messages, ${results.length} questions, driver ${driver ?? 'default'}`,
  )
  console.log(
    `${'group'.padEnd(24)} ${'n'.padStart(4)} ${'R@5'.padStart(7)} ${'R@10'.padStart(7)} ${'R@25'.padStart(7)} ${'MRR'.padStart(7)}`,
  )
  for (const row of table) {
    console.log(
      `${row.group.padEnd(24)} ${String(row.questions).padStart(4)} ${pct(row.recall5)} ${pct(row.recall10)} ${pct(row.recall25)} ${pct(row.mrr)}`,
    )
  }
  if (args.includes('--verbose')) {
    for (const r of results.filter((x) => x.recall[10] < 1)) {
      console.log(
        `  miss ${r.question.id} ${r.question.kind} ${JSON.stringify(r.question.question)} → ${r.question.answers.join(', ')}`,
      )
    }
  }
  console.log(
    `\nload ${loadMs.toFixed(0)} ms; latency per query: mean ${lat.meanMs.toFixed(2)} ms, median ${lat.medianMs.toFixed(2)} ms, p95 ${lat.p95Ms.toFixed(2)} ms`,
  )
}

const TECHNIQUES = RANK_FEATURES

/** Recall@5/@10 and MRR per half with the techniques added one at a time, then with each one left out. */
async function techniqueTable(data: ConversationDataset, driver?: 'better-sqlite3' | 'libsql') {
  const none = Object.fromEntries(TECHNIQUES.map((t) => [t, false])) as unknown as RankFeatures
  const configs: [string, Partial<RankFeatures>][] = [['none (BM25 order)', none]]
  TECHNIQUES.forEach((t, i) => {
    configs.push([
      `+ ${t}`,
      { ...none, ...Object.fromEntries(TECHNIQUES.slice(0, i + 1).map((x) => [x, true])) },
    ])
  })
  for (const t of TECHNIQUES) configs.push([`all − ${t}`, { [t]: false }])
  const pct = (x: number) => `${(x * 100).toFixed(1)}`
  console.log('| technique | tune R@5 | tune R@10 | tune MRR | held-out R@5 | held-out R@10 | held-out MRR |')
  console.log('|---|---|---|---|---|---|---|')
  for (const [label, ranking] of configs) {
    const { results } = await runConversationEval(data, driver, ranking)
    const [tune, held] = (['tune', 'heldout'] as const).map((split) =>
      summarize(
        split,
        results.filter((r) => r.split === split),
      ),
    ) as [Summary, Summary]
    const cells = [tune, held].map((x) => `${pct(x.recall5)} | ${pct(x.recall10)} | ${pct(x.mrr)}`)
    console.log(`| ${label} | ${cells.join(' | ')} |`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 2
  })
}
