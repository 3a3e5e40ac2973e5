import { afterAll, expect, it } from 'vitest'
import { buildChatDataset } from '../eval/chats/build-chats.ts'
import { openStore, type Store } from '../src/index.ts'
import { searchWithRanking } from '../src/store/evaluation.ts'
import { tempDbPath, tempDir } from './helpers.ts'

const dir = tempDir('engram-question-ranking-')
const stores: Store[] = []
afterAll(async () => {
  for (const store of stores) await store.close()
})

async function freshStore(): Promise<Store> {
  const store = await openStore({ url: tempDbPath(dir) })
  stores.push(store)
  return store
}

it('builds the same chat set every time, with both halves and every kind', () => {
  const first = buildChatDataset()
  expect(JSON.stringify(buildChatDataset())).toBe(JSON.stringify(first))
  expect(first.conversations.map((c) => c.split)).toContain('heldout')
  expect(new Set(first.questions.map((q) => q.kind))).toEqual(
    new Set(['reply', 'single', 'when', 'multi', 'open']),
  )
  for (const q of first.questions) expect(q.answers.length).toBeGreaterThan(0)
})

it('finds every reply a question asks for, its window scored from its turns', async () => {
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
  const found = await recall()
  expect(questions.length).toBeGreaterThan(2)
  expect(found).toBe(questions.length)
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
  const off = await searchWithRanking(
    store,
    'What did Caroline research?',
    { userId: 'u', limit: 5 },
    { participants: false },
  )
  expect(off[0]?.kind === 'message' && off[0].messageId).not.toBe(answer?.id)
  // the switch is the harness's alone: store.search has no `ranking` option and keeps every technique on
  const publicOff = await store.search('What did Caroline research?', {
    userId: 'u',
    limit: 5,
    ranking: { participants: false },
  } as never)
  expect(publicOff[0]?.kind === 'message' && publicOff[0].messageId).toBe(answer?.id)
  // a question of nothing but a name keeps it as its word
  expect((await store.search('Where is Caroline?', { userId: 'u', limit: 5 })).length).toBeGreaterThan(0)
})

it("ranks the answer to a matching question by the question's words, and only another speaker's answer", async () => {
  const store = await freshStore()
  const chat = async (turns: [string, string][]) => {
    const session = await store.createSession({ source: 'chat', userId: 'u' })
    return store.appendMessages(
      session.id,
      turns.map(([name, content]) => ({ role: name === 'Mel' ? 'user' : 'assistant', name, content })),
    )
  }
  // turns that hold the question's words in passing, each in its own session
  for (const [i, line] of [
    'Packed the book for the trip, and a take away menu.',
    'The library took away the old book shelves today.',
    'Take away: the book club moved to Tuesdays.',
    'Another book arrived; I will take it away to the cabin.',
  ].entries())
    await chat([
      ['Caroline', `Morning ${i}.`],
      ['Mel', line],
      ['Caroline', `Noted ${i}.`],
    ])
  const [, answer] = await chat([
    ['Mel', 'What did you take away from the book?'],
    ['Caroline', 'It taught me self-acceptance and how to find support.'],
  ])
  // the same speaker asking again is no answer: Mel's second line does not take her question's score
  const [, , again] = await chat([
    ['Caroline', 'Nice weather.'],
    ['Mel', 'What will you take away from the book fair?'],
    ['Mel', 'Never mind, I found the programme.'],
  ])
  const query = 'What did Caroline take away from the book?'
  const rankOf = (hits: Awaited<ReturnType<Store['search']>>, id: number | undefined) =>
    hits.findIndex((hit) => hit.kind === 'message' && hit.messageId === id)
  const on = await store.search(query, { userId: 'u', limit: 10 })
  expect(rankOf(on, answer?.id)).toBeGreaterThanOrEqual(0)
  expect(rankOf(on, answer?.id)).toBeLessThan(2)
  // below the five turns that hold the words (the four in passing and the question), if found at all
  expect(rankOf(on, again?.id) < 0 || rankOf(on, again?.id) > 5).toBe(true)
  const off = await searchWithRanking(store, query, { userId: 'u', limit: 10 }, { replies: false })
  expect(rankOf(off, answer?.id) < 0 || rankOf(off, answer?.id) >= 2).toBe(true)
})
