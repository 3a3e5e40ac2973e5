import Database from 'better-sqlite3'
import { afterAll, expect, it } from 'vitest'
import { buildChatDataset } from '../eval/chats/build-chats.ts'
import { openStore, type Store } from '../src/index.ts'
import { WINDOW_BATCH } from '../src/store/window-index.ts'
import { tempDbPath, tempDir } from './helpers.ts'

const dir = tempDir('engram-window-index-')
const stores: Store[] = []
afterAll(async () => {
  for (const store of stores) await store.close()
})

const paths = new Map<Store, string>()
async function freshStore(): Promise<Store> {
  const path = tempDbPath(dir)
  const store = await openStore({ url: path })
  stores.push(store)
  paths.set(store, path)
  return store
}

/** Runs `sql` on a second connection to the store's file (the tables the Store API does not show). */
function raw<T>(store: Store, work: (db: Database.Database) => T): T {
  const db = new Database(paths.get(store) as string)
  try {
    return work(db)
  } finally {
    db.close()
  }
}

const count = async (store: Store, sql: string) =>
  raw(store, (db) => Number((db.prepare(sql).get() as { n: number }).n))

it('builds the same chat set every time, with both halves and every kind', () => {
  const first = buildChatDataset()
  expect(JSON.stringify(buildChatDataset())).toBe(JSON.stringify(first))
  expect(first.conversations.map((c) => c.split)).toContain('heldout')
  expect(new Set(first.questions.map((q) => q.kind))).toEqual(
    new Set(['reply', 'single', 'when', 'multi', 'open']),
  )
  for (const q of first.questions) expect(q.answers.length).toBeGreaterThan(0)
})

it('indexes windows in a batch after WINDOW_BATCH appends, never inside the append', async () => {
  const store = await freshStore()
  const session = await store.createSession({ source: 'chat', userId: 'u' })
  for (let i = 0; i < WINDOW_BATCH - 1; i++)
    await store.appendMessage(session.id, { role: 'user', name: 'Ann', content: `turn ${i}` })
  await new Promise((resolve) => setImmediate(resolve))
  expect(await count(store, 'SELECT count(*) AS n FROM window_marks')).toBe(0)
  await store.appendMessage(session.id, { role: 'user', name: 'Ann', content: 'the last turn' })
  await new Promise((resolve) => setTimeout(resolve, 50))
  // every message but the last (whose next turn is not written yet) has its window
  expect(
    await count(
      store,
      "SELECT count(*) AS n FROM message_windows_fts WHERE message_windows_fts MATCH 'turn'",
    ),
  ).toBe(WINDOW_BATCH - 1)
  await store.deleteSession(session.id)
  expect(
    await count(
      store,
      "SELECT count(*) AS n FROM message_windows_fts WHERE message_windows_fts MATCH 'turn'",
    ),
  ).toBe(0)
  expect(await count(store, 'SELECT count(*) AS n FROM window_marks')).toBe(0)
})

it('finds the same answers whether the windows are indexed or still built at query time', async () => {
  const data = buildChatDataset()
  const chat = data.conversations[0]
  if (!chat) throw new Error('no chat')
  const store = await freshStore()
  const keys = new Map<number, string>()
  for (const s of chat.sessions) {
    const session = await store.createSession({ source: 'chat', userId: chat.key })
    const stored = await store.appendMessages(
      session.id,
      s.messages.map((m) => ({ role: m.role, name: m.name, content: m.content, timestamp: m.timestamp })),
    )
    for (const [i, m] of stored.entries()) keys.set(m.id, s.messages[i]?.key as string)
  }
  const questions = data.questions.filter((q) => q.conversation === chat.key && q.kind === 'reply')
  const recall = async () => {
    let found = 0
    for (const q of questions) {
      const hits = await store.search(q.question, { userId: chat.key, limit: 10 })
      const top = hits.flatMap((h) => (h.kind === 'message' ? [keys.get(h.messageId)] : []))
      found += q.answers.filter((a) => top.includes(a)).length
    }
    return found
  }
  // the batches run after the appends: clear them, search, then index everything and search again
  await new Promise((resolve) => setTimeout(resolve, 50))
  raw(store, (db) =>
    db.exec(
      "INSERT INTO message_windows_fts (message_windows_fts) VALUES ('delete-all'); DELETE FROM window_marks",
    ),
  )
  expect(await count(store, 'SELECT count(*) AS n FROM window_marks')).toBe(0)
  const queryTime = await recall()
  await store.rebuildSearchIndex()
  expect(await count(store, 'SELECT count(*) AS n FROM window_marks')).toBe(chat.sessions.length)
  const indexed = await recall()
  expect(questions.length).toBeGreaterThan(2)
  expect(queryTime).toBe(questions.length)
  expect(indexed).toBe(questions.length)
})
