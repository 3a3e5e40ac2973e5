import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore, type Store, type StoredMessage } from '../src/index.ts'
import { driversUnderTest, tempDbPath, tempDir, withStore } from './helpers.ts'
import type { WorkerReport } from './processes/append-worker.ts'
import { type Child, exitWithin, killIfRunning, spawnScript, waitForLine } from './processes/spawn.ts'

const CHILDREN = 4
const MESSAGES = 300

const contentOf = (child: number, i: number) => `child-${child}-msg-${i}`
const range = (n: number) => Array.from({ length: n }, (_, i) => i)

function expectStrictlyIncreasing(ids: readonly number[], what: string): void {
  for (let i = 1; i < ids.length; i++) {
    if (!((ids[i] as number) > (ids[i - 1] as number))) {
      expect.fail(`${what}: id ${ids[i]} at position ${i} follows ${ids[i - 1]}`)
    }
  }
}

/** The shared session holds each writer's messages exactly once and in that writer's order. */
function expectInterleaving(shared: StoredMessage[], writers: number, messages: number): void {
  expect(shared).toHaveLength(writers * messages)
  expectStrictlyIncreasing(
    shared.map((m) => m.id),
    'shared session',
  )
  const next = new Array<number>(writers).fill(0)
  for (const m of shared) {
    const match = /^child-(\d+)-msg-(\d+)$/.exec(String(m.content))
    expect(match, `unexpected message ${JSON.stringify(m.content)} in the shared session`).not.toBeNull()
    const child = Number(match?.[1])
    const i = Number(match?.[2])
    expect(i, `child ${child}'s messages are out of order in the shared session`).toBe(next[child])
    next[child] = i + 1
  }
  expect(next).toEqual(new Array<number>(writers).fill(messages))
}

async function expectOwnSession(store: Store, sessionId: string, child: number, ids?: number[]) {
  const own = await store.getStoredMessages(sessionId)
  expect(own.map((m) => m.content)).toEqual(range(MESSAGES).map((i) => contentOf(child, i)))
  expectStrictlyIncreasing(
    own.map((m) => m.id),
    `child ${child}'s session`,
  )
  if (ids) expect(own.map((m) => m.id)).toEqual(ids)
}

describe('concurrent writers', () => {
  const dir = tempDir('engram-concurrency-')

  // Several processes writing one file is supported on better-sqlite3 only: the SQLite 3.45.1 bundled
  // with libSQL can corrupt the WAL when several connections write and checkpoint it (fixed in 3.51.3).
  it.skipIf(!driversUnderTest().includes('better-sqlite3'))(
    `${CHILDREN} child processes appending to one file at once finish with zero errors and every message present and in per-session order (better-sqlite3)`,
    async () => {
      const path = tempDbPath(dir)
      const goFile = join(dir, `go-${Date.now()}`)
      const setup = await openStore({ url: path })
      const shared = (await setup.createSession({ source: 'shared' })).id
      await setup.close()

      const children: Child[] = range(CHILDREN).map((k) =>
        spawnScript('append-worker.ts', [path, String(MESSAGES), String(k), shared, goFile]),
      )
      try {
        // Start them together: every child has opened the store before any of them writes.
        await Promise.all(children.map((c) => waitForLine(c, (line) => line === 'READY', 600_000)))
        writeFileSync(goFile, '')
        const exits = await Promise.all(children.map((c) => exitWithin(c, 600_000)))

        const reports = children.map((c, k) => {
          expect(exits[k], c.describe()).toEqual({ code: 0, signal: null })
          const last = c.stdout().trim().split('\n').at(-1) ?? ''
          return JSON.parse(last) as WorkerReport
        })
        for (const [k, report] of reports.entries()) {
          const context = `child ${k}: ${report.errorMessages.join('; ')}\n${children[k]?.describe()}`
          expect(report.child).toBe(k)
          expect(report.errors, context).toBe(0)
          expect(report.ownIds, context).toHaveLength(MESSAGES)
          expect(report.sharedIds, context).toHaveLength(MESSAGES)
          expectStrictlyIncreasing(report.ownIds, `child ${k}'s own ids`)
          expectStrictlyIncreasing(report.sharedIds, `child ${k}'s shared ids`)
        }
        // Every id any child was given is distinct.
        const allIds = reports.flatMap((r) => [...r.ownIds, ...r.sharedIds])
        expect(new Set(allIds).size).toBe(allIds.length)

        await withStore({ url: path }, async (store) => {
          for (const [k, report] of reports.entries()) {
            await expectOwnSession(store, report.sessionId, k, report.ownIds)
          }
          const sharedMessages = await store.getStoredMessages(shared)
          expectInterleaving(sharedMessages, CHILDREN, MESSAGES)
          // The ids each child was handed are the ids its shared-session rows carry.
          for (const [k, report] of reports.entries()) {
            const mine = sharedMessages.filter((m) => String(m.content).startsWith(`child-${k}-`))
            expect(mine.map((m) => m.id)).toEqual(report.sharedIds)
          }
          const session = await store.getSession(shared)
          expect(session?.messageCount).toBe(CHILDREN * MESSAGES)
          expect(await store.checkIntegrity()).toEqual({
            ok: true,
            status: 'ok',
            database: ['ok'],
            searchIndex: { messages: 'ok', episodes: 'ok' },
            fix: null,
          })
        })
      } finally {
        for (const c of children) killIfRunning(c)
      }
    },
  )

  // Opening runs the pending migrations, and an opener can read __drizzle_migrations before another one
  // commits them. Two opens in one process hit that window every time (each await lets the other's read in
  // first); the loser must then find the migrations applied instead of failing on "table already exists".
  for (const driver of driversUnderTest()) {
    it(`two stores opening the same fresh file at once both succeed (${driver})`, async () => {
      const path = tempDbPath(dir)
      const opened = await Promise.allSettled([
        openStore({ url: path, driver }),
        openStore({ url: path, driver }),
      ])
      const stores = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
      try {
        const failures = opened.flatMap((r) =>
          r.status === 'rejected'
            ? [`${(r.reason as { code?: string }).code}: ${(r.reason as Error).message}`]
            : [],
        )
        expect(failures).toEqual([])
        const [first, second] = stores as [Store, Store]
        const session = await first.createSession({ source: 'race' })
        await second.appendMessage(session.id, { role: 'user', content: 'both stores work' })
        expect((await first.getMessages(session.id)).map((m) => m.content)).toEqual(['both stores work'])
      } finally {
        for (const store of stores) await store.close()
      }
    })
  }

  it.skipIf(!driversUnderTest().includes('better-sqlite3'))(
    `${CHILDREN} child processes opening one fresh file at once all migrate it and write to it (better-sqlite3)`,
    async () => {
      const path = tempDbPath(dir)
      const goFile = join(dir, `go-open-${Date.now()}`)
      const children = range(CHILDREN).map(() => spawnScript('open-worker.ts', [path, goFile]))
      try {
        await Promise.all(children.map((c) => waitForLine(c, (line) => line === 'READY', 600_000)))
        writeFileSync(goFile, '')
        const exits = await Promise.all(children.map((c) => exitWithin(c, 600_000)))
        for (const [k, c] of children.entries()) {
          expect(exits[k], c.describe()).toEqual({ code: 0, signal: null })
          expect(JSON.parse(c.stdout().trim().split('\n').at(-1) ?? ''), c.describe()).toEqual({ ok: true })
        }
        await withStore({ url: path }, async (store) => {
          expect(await store.listSessions()).toHaveLength(CHILDREN)
          expect((await store.checkIntegrity()).ok).toBe(true)
        })
      } finally {
        for (const c of children) killIfRunning(c)
      }
    },
  )

  // busyTimeout is applied with PRAGMA busy_timeout, which holds for one connection only. @libsql/client 0.18
  // keeps a pool of connections per client and opens more whenever calls overlap, unless told to keep one;
  // a pooled connection without the pragma would give up on a lock at once. Overlapping reads come first so
  // that such a pool would have grown before the append.
  for (const driver of driversUnderTest()) {
    it(`an append waits busyTimeout for another process's write lock, after overlapping reads (${driver})`, async () => {
      const path = tempDbPath(dir)
      const store = await openStore({ url: path, driver, busyTimeout: 10_000, retry: { attempts: 2 } })
      const holder = spawnScript('lock-holder.ts', [path, '3000'])
      try {
        const session = await store.createSession({ source: 'busy' })
        await Promise.all(range(4).map(() => store.getSession(session.id)))
        await waitForLine(holder, (line) => line === 'LOCKED', 600_000)
        const heldAtStart = !holder.stdout().includes('RELEASED')
        const appended = await store
          .appendMessage(session.id, { role: 'user', content: 'after the lock' })
          .then(
            (m) => m.content,
            (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`,
          )
        // Written before the holder's COMMIT: there once the append is done, so the append waited for it.
        const finishedAfterRelease = existsSync(`${path}.releasing`)
        expect(appended, holder.describe()).toBe('after the lock')
        // There was a wait to check: the lock was still held when the append began, and it waited for it.
        expect(heldAtStart, holder.describe()).toBe(true)
        expect(finishedAfterRelease, holder.describe()).toBe(true)
        expect(await exitWithin(holder, 600_000), holder.describe()).toEqual({ code: 0, signal: null })
      } finally {
        killIfRunning(holder)
        await store.close()
      }
    })
  }

  // libSQL: concurrency inside one process only (many appends in flight on one store, plus a second store
  // on the same file), which is how the driver is supported.
  it.skipIf(!driversUnderTest().includes('libsql'))(
    'many concurrent appends on two libSQL stores in one process keep every message, in per-session order',
    async () => {
      const path = tempDbPath(dir)
      const first = await openStore({ url: path, driver: 'libsql' })
      const second = await openStore({ url: path, driver: 'libsql' })
      try {
        const shared = (await first.createSession({ source: 'shared' })).id
        const writer = async (k: number) => {
          const store = k % 2 === 0 ? first : second
          const own = (await store.createSession({ source: `writer-${k}` })).id
          const ownIds: number[] = []
          const sharedIds: number[] = []
          for (let i = 0; i < MESSAGES; i++) {
            // Both appends of a step in flight at once, on top of every other writer's.
            const [a, b] = await Promise.all([
              store.appendMessage(own, { role: 'user', content: contentOf(k, i) }),
              store.appendMessage(shared, { role: 'assistant', content: contentOf(k, i) }),
            ])
            ownIds.push(a.id)
            sharedIds.push(b.id)
          }
          return { own, ownIds, sharedIds }
        }
        const results = await Promise.all(range(CHILDREN).map(writer))

        for (const [k, result] of results.entries()) {
          expectStrictlyIncreasing(result.ownIds, `writer ${k}'s own ids`)
          expectStrictlyIncreasing(result.sharedIds, `writer ${k}'s shared ids`)
          await expectOwnSession(second, result.own, k, result.ownIds)
        }
        expectInterleaving(await first.getStoredMessages(shared), CHILDREN, MESSAGES)
        expect(await first.checkIntegrity()).toEqual({
          ok: true,
          status: 'ok',
          database: ['ok'],
          searchIndex: { messages: 'ok', episodes: 'ok' },
          fix: null,
        })
      } finally {
        await second.close()
        await first.close()
      }
    },
  )
})
