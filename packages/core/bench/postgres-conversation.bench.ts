/**
 * The conversation evaluation set (eval/conversation-eval.ts) on PostgreSQL beside SQLite: the same
 * generated conversations, questions and scoring, recall@5/@10 and MRR per split on both engines.
 *
 *   tsx --conditions=engram-source packages/core/bench/postgres-conversation.bench.ts
 */
import {
  askQuestions,
  conversationData,
  conversationTable,
  loadConversations,
  type QuestionResult,
  runConversationEval,
} from '../eval/conversation-eval.ts'
import { openStore } from '../src/index.ts'
import { startPostgres } from '../test/postgres-server.ts'

const data = conversationData()

async function onPostgres(url: string): Promise<QuestionResult[]> {
  const store = await openStore({ url, schema: 'conversation_eval' })
  try {
    return await askQuestions(store, data, await loadConversations(store, data))
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
