/**
 * Model-based test of the store: random command sequences (create, append, append batch, end, delete,
 * continue, search, prune) run against the real store and a small in-memory model; after every command
 * the touched sessions must agree with the model. fast-check shrinks a failing sequence to a minimal one.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type DriverName, EngramError, openStore, type Store } from '../src/index.ts'
import { driversUnderTest, tempDbPath, tempDir } from './helpers.ts'

interface ModelMessage {
  id: number
  role: 'user' | 'assistant'
  content: string
}
interface ModelSession {
  id: string
  source: string
  parent: string | null
  endReason: string | null
  messages: ModelMessage[]
  live: boolean
}
interface Model {
  /** Every session ever created, deleted ones included (commands may name them on purpose). */
  sessions: ModelSession[]
  created: number
}
type Cmd = fc.AsyncCommand<Model, Store>

// Words whose search behaviour is unambiguous: English words with distinct stems, Chinese words that share
// no character (so no phrase can match across two words).
const ENGLISH = ['alpha', 'bravo', 'kilo', 'zulu', 'tango'] as const
const CHINESE = ['数据库', '搜索', '内存'] as const
const WORDS = [...ENGLISH, ...CHINESE]
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '))
const message = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: text })

const UNKNOWN: ModelSession = {
  id: 'no-such-session',
  source: '',
  parent: null,
  endReason: null,
  messages: [],
  live: false,
}
/** The session a command's `pick` names: any session ever created, or an unknown id. */
const pickSession = (m: Model, pick: number): ModelSession =>
  m.sessions.length === 0 ? UNKNOWN : (m.sessions[pick % (m.sessions.length + 1)] ?? UNKNOWN)
const live = (m: Model) => m.sessions.filter((s) => s.live)

async function expectNotFound(work: Promise<unknown>): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EngramError)
  expect((error as EngramError).code).toBe('SESSION_NOT_FOUND')
}

/** The store's view of one session equals the model's. */
async function expectSession(store: Store, s: ModelSession): Promise<void> {
  const session = await store.getSession(s.id)
  if (!s.live) {
    expect(session).toBeNull()
    return
  }
  expect(session).toMatchObject({
    source: s.source,
    parentSessionId: s.parent,
    endReason: s.endReason,
    messageCount: s.messages.length,
  })
  expect(session?.endedAt !== null).toBe(s.endReason !== null)
  const stored = await store.getStoredMessages(s.id)
  expect(stored.map(({ id, role, content }) => ({ id, role, content }))).toEqual(s.messages)
}

const detachChildren = (m: Model, gone: ReadonlySet<string>) => {
  for (const s of m.sessions) if (s.parent !== null && gone.has(s.parent)) s.parent = null
}

const describeCmd = (name: string, args: unknown) => `${name}(${JSON.stringify(args)})`

const commands = [
  fc.constantFrom('cli', 'telegram').map(
    (source): Cmd => ({
      check: () => true,
      async run(m, store) {
        const id = `s${m.created++}`
        await store.createSession({ id, source })
        const s: ModelSession = { id, source, parent: null, endReason: null, messages: [], live: true }
        m.sessions.push(s)
        await expectSession(store, s)
      },
      toString: () => describeCmd('create', source),
    }),
  ),
  fc.record({ pick: fc.nat(), msg: message }).map(
    ({ pick, msg }): Cmd => ({
      check: () => true,
      async run(m, store) {
        const s = pickSession(m, pick)
        if (!s.live) return expectNotFound(store.appendMessage(s.id, msg))
        const { id } = await store.appendMessage(s.id, msg)
        s.messages.push({ id, ...msg })
        await expectSession(store, s)
      },
      toString: () => describeCmd('append', { pick, msg }),
    }),
  ),
  fc.record({ pick: fc.nat(), msgs: fc.array(message, { minLength: 1, maxLength: 4 }) }).map(
    ({ pick, msgs }): Cmd => ({
      check: (m) => live(m).length > 0,
      async run(m, store) {
        const s = live(m)[pick % live(m).length] as ModelSession
        const stored = await store.appendMessages(s.id, msgs)
        s.messages.push(...stored.map((x, i) => ({ id: x.id, ...(msgs[i] as (typeof msgs)[number]) })))
        await expectSession(store, s)
      },
      toString: () => describeCmd('appendBatch', { pick, msgs }),
    }),
  ),
  fc.record({ pick: fc.nat(), reason: fc.constantFrom('user_exit', 'timeout') }).map(
    ({ pick, reason }): Cmd => ({
      check: () => true,
      async run(m, store) {
        const s = pickSession(m, pick)
        if (!s.live) return expectNotFound(store.endSession(s.id, reason))
        await store.endSession(s.id, reason)
        s.endReason ??= reason
        await expectSession(store, s)
      },
      toString: () => describeCmd('end', { pick, reason }),
    }),
  ),
  fc.nat().map(
    (pick): Cmd => ({
      check: () => true,
      async run(m, store) {
        const s = pickSession(m, pick)
        if (!s.live) return expectNotFound(store.deleteSession(s.id))
        await store.deleteSession(s.id)
        s.live = false
        detachChildren(m, new Set([s.id]))
        for (const other of m.sessions) await expectSession(store, other)
      },
      toString: () => describeCmd('delete', pick),
    }),
  ),
  fc.record({ pick: fc.nat(), msgs: fc.array(message, { maxLength: 3 }) }).map(
    ({ pick, msgs }): Cmd => ({
      check: () => true,
      async run(m, store) {
        const parent = pickSession(m, pick)
        const input = { endReason: 'compression', messages: msgs }
        if (!parent.live) return expectNotFound(store.continueSession(parent.id, input))
        const { session, messages } = await store.continueSession(parent.id, input)
        parent.endReason ??= 'compression'
        const child: ModelSession = {
          id: session.id,
          source: parent.source,
          parent: parent.id,
          endReason: null,
          messages: messages.map((x, i) => ({ id: x.id, ...(msgs[i] as (typeof msgs)[number]) })),
          live: true,
        }
        m.sessions.push(child)
        await expectSession(store, parent)
        await expectSession(store, child)
      },
      toString: () => describeCmd('continue', { pick, msgs }),
    }),
  ),
  fc.record({ word: fc.constantFrom(...WORDS), inSession: fc.option(fc.nat(), { nil: undefined }) }).map(
    ({ word, inSession }): Cmd => ({
      check: () => true,
      async run(m, store) {
        const only = inSession === undefined ? undefined : pickSession(m, inSession)
        const hits = await store.search(word, {
          limit: 1000,
          includeEpisodes: false,
          ...(only ? { sessionId: only.id } : {}),
        })
        const expected = live(m)
          .filter((s) => only === undefined || s.id === only.id)
          .flatMap((s) => s.messages.filter((x) => x.content.split(' ').includes(word)).map((x) => x.id))
        expect(hits.map((h) => h.messageId).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
          expected.sort((a, b) => a - b),
        )
      },
      toString: () => describeCmd('search', { word, inSession }),
    }),
  ),
  fc.constant(
    ((): Cmd => ({
      check: () => true,
      async run(m, store) {
        // Ended sessions are pruned only once a millisecond has passed since they ended.
        await new Promise((resolve) => setTimeout(resolve, 2))
        const doomed = live(m).filter((s) => s.endReason !== null)
        expect(await store.pruneSessions({ olderThanDays: 0 })).toBe(doomed.length)
        for (const s of doomed) s.live = false
        detachChildren(m, new Set(doomed.map((s) => s.id)))
        for (const s of m.sessions) await expectSession(store, s)
      },
      toString: () => 'prune()',
    }))(),
  ),
]

for (const driver of driversUnderTest()) {
  describe(`the store against an in-memory model (${driver})`, () => {
    const dir = tempDir(`engram-model-${driver}-`)
    it('agrees with the model after every command of random sequences', async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: 'max' }), async (cmds) => {
          const store = await openStore({ url: tempDbPath(dir), driver: driver as DriverName })
          try {
            await fc.asyncModelRun(
              () => ({ model: { sessions: [], created: 0 } as Model, real: store }),
              cmds,
            )
            expect((await store.checkIntegrity()).ok).toBe(true)
          } finally {
            await store.close()
          }
        }),
        { numRuns: 50 },
      )
    })
  })
}
