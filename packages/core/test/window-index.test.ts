import Database from 'better-sqlite3'
import { afterAll, expect, it } from 'vitest'
import { buildChatDataset } from '../eval/chats/build-chats.ts'
import { openStore, type Store } from '../src/index.ts'
import { WINDOW_IDLE_MS } from '../src/store/window-index.ts'
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const windowsMatching = (store: Store, word: string) =>
  count(store, `SELECT count(*) AS n FROM message_windows_fts WHERE message_windows_fts MATCH '${word}'`)

it('indexes windows in one batch once the store is idle, never inside an append', async () => {
  const store = await freshStore()
  const session = await store.createSession({ source: 'chat', userId: 'u' })
  for (let i = 0; i < 40; i++)
    await store.appendMessage(session.id, { role: 'user', name: 'Ann', content: `turn ${i}` })
  // every append has returned, and not one window is written yet
  expect(await count(store, 'SELECT count(*) AS n FROM window_marks')).toBe(0)
  expect(await windowsMatching(store, 'turn')).toBe(0)
  await sleep(WINDOW_IDLE_MS * 3)
  // every message but the last (whose next turn is not written yet) has its window
  expect(await windowsMatching(store, 'turn')).toBe(39)
  await store.appendMessage(session.id, { role: 'user', name: 'Bo', content: 'the last turn' })
  await store.endSession(session.id, 'done')
  await sleep(10)
  expect(await windowsMatching(store, 'turn')).toBe(40)
  await store.deleteSession(session.id)
  expect(await windowsMatching(store, 'turn')).toBe(0)
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
  // the batch runs once the store is idle: clear it, search, then index everything and search again
  await sleep(WINDOW_IDLE_MS * 3)
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

it('matches a participant a question names by speaker, not by the greetings that name them', async () => {
  const store = await freshStore()
  const greetings = await store.createSession({ source: 'chat', userId: 'u' })
  for (let i = 0; i < 6; i++)
    await store.appendMessage(greetings.id, {
      role: 'user',
      name: 'Mel',
      content: `Hi Caroline! Research day ${i}?`,
    })
  const session = await store.createSession({ source: 'chat', userId: 'u' })
  const [, answer] = await store.appendMessages(session.id, [
    { role: 'user', name: 'Mel', content: 'What have you been up to?' },
    { role: 'assistant', name: 'Caroline', content: 'Mostly researching adoption agencies' },
  ])
  const hits = await store.search('What did Caroline research?', { userId: 'u', limit: 5 })
  expect(hits[0]?.kind === 'message' && hits[0].messageId).toBe(answer?.id)
  // without its speaker's turns to boost, the name is dropped and a question finds what its words match
  const off = await store.search('What did Caroline research?', {
    userId: 'u',
    limit: 5,
    ranking: { participants: false },
  } as never)
  expect(off[0]?.kind === 'message' && off[0].messageId).not.toBe(answer?.id)
  // a question of nothing but a name keeps it as its word
  expect((await store.search('Where is Caroline?', { userId: 'u', limit: 5 })).length).toBeGreaterThan(0)
})
