/**
 * The conversation evaluation set (eval/conversation-eval.ts) on PostgreSQL beside SQLite: the same
 * generated conversations, questions and scoring, recall@5/@10 and MRR per split on both engines.
 * (runConversationEval opens SQLite only, so the PostgreSQL half loads and asks here, the same way.)
 *
 *   tsx --conditions=engram-source packages/core/bench/postgres-conversation.bench.ts
 */
import {
  conversationData,
  conversationTable,
  type QuestionResult,
  runConversationEval,
} from '../eval/conversation-eval.ts'
import { openStore } from '../src/index.ts'
import { startPostgres } from '../test/postgres-server.ts'

const data = conversationData()
const split = new Map(data.conversations.map((c) => [c.key, c.split]))

async function onPostgres(url: string): Promise<QuestionResult[]> {
  const store = await openStore({ url, schema: 'conversation_eval' })
  try {
    const keyById = new Map<number, string>()
    for (const c of data.conversations)
      for (const s of c.sessions) {
        const session = await store.createSession({ source: 'chat', userId: c.key, title: s.key })
        const stored = await store.appendMessages(
          session.id,
          s.messages.map((m) => ({ role: m.role, name: m.name, content: m.content, timestamp: m.timestamp })),
        )
        for (const [i, m] of stored.entries()) keyById.set(m.id, s.messages[i]?.key as string)
      }
    const results: QuestionResult[] = []
    for (const q of data.questions) {
      const started = performance.now()
      const hits = await store.search(q.question, {
        userId: q.conversation,
        limit: 25,
        includeEpisodes: false,
        now: q.askedAt,
      })
      const ms = performance.now() - started
      const found = hits.flatMap((h) => (h.kind === 'message' ? [keyById.get(h.messageId) ?? '?'] : []))
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
  } finally {
    await store.close()
  }
}

const server = await startPostgres()
try {
  const sqlite = conversationTable((await runConversationEval(data)).results)
  const postgres = conversationTable(await onPostgres(server.url))
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  console.log(`conversation eval ${new Date().toISOString()}: ${data.questions.length} questions`)
  console.log('group | SQLite R@5 / R@10 / MRR | PostgreSQL R@5 / R@10 / MRR')
  for (const [i, row] of sqlite.entries()) {
    const pg = postgres[i]
    if (!pg) continue
    console.log(
      `${row.group} (${row.questions}) | ${pct(row.recall5)} / ${pct(row.recall10)} / ${pct(row.mrr)} | ${pct(pg.recall5)} / ${pct(pg.recall10)} / ${pct(pg.mrr)}`,
    )
  }
} finally {
  server.stop()
}
