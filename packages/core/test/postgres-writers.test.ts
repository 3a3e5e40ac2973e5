import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore, type Store } from '../src/index.ts'
import { type PostgresServer, startPostgres } from './postgres-server.ts'
import { type Child, exitWithin, killIfRunning, spawnScript } from './processes/spawn.ts'

const WRITERS = 8
/** Messages per writer and session; ENGRAM_PG_SOAK_MESSAGES runs the same test longer. */
const MESSAGES = Number(process.env.ENGRAM_PG_SOAK_MESSAGES ?? 150)
const SCHEMA = 'writers'
/** Time for one stage of the run (ms), growing with the run's length. */
const STAGE_MS = 30_000 + MESSAGES * 600

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
})
afterAll(() => server?.stop())

interface Writer {
  own: string
  /** Acknowledged appends: session kind → message index → id. */
  acked: { own: Map<number, number>; shared: Map<number, number> }
  /** Indexes whose append was under way when the writer was killed: stored at most once. */
  inDoubt: Set<number>
  /** The highest index acknowledged in either session. */
  last: number
  /** Where the writer (re)starts. */
  next: number
  child?: Child
}

function start(writer: Writer, k: number, shared: string): Child {
  const child = spawnScript('./pg-writer.ts', [
    server.url,
    SCHEMA,
    String(k),
    String(writer.next),
    String(MESSAGES),
    writer.own,
    shared,
  ])
  child.onLine((line) => {
    const [word, kind, index, id] = line.split(' ')
    if (word !== 'ACK') return
    writer.acked[kind as 'own' | 'shared'].set(Number(index), Number(id))
    writer.last = Math.max(writer.last, Number(index))
  })
  writer.child = child
  return child
}

/**
 * Three different writers to SIGKILL and the four points of the run (fractions of the shared session's
 * messages) at which the first is killed, the server restarted, and the other two killed.
 */
function killPlan() {
  const writers = [...Array(WRITERS).keys()].sort(() => Math.random() - 0.5)
  const stages = [0.1, 0.3, 0.5, 0.65].map((at) => at + Math.random() * 0.1)
  return {
    killed: writers.slice(0, 3) as [number, number, number],
    stages: stages as [number, number, number, number],
  }
}

/** The messages of writer `k` in a session, as the indexes of their content, in id order. */
const indexesOf = (rows: { content: unknown; id: number }[], k: number) =>
  rows.flatMap((row) => {
    const match = /^w(\d+)-(\d+)$/.exec(String(row.content))
    return match && Number(match[1]) === k ? [{ index: Number(match[2]), id: row.id }] : []
  })

function expectExactlyOnceInOrder(
  rows: { index: number; id: number }[],
  acked: Map<number, number>,
  inDoubt: Set<number>,
  what: string,
) {
  for (let i = 1; i < rows.length; i++)
    expect(rows[i]?.index, `${what}: out of order or twice at row ${i}`).toBeGreaterThan(
      rows[i - 1]?.index as number,
    )
  const stored = new Map(rows.map((r) => [r.index, r.id]))
  for (const [index, id] of acked)
    expect(stored.get(index), `${what}: acknowledged message ${index}`).toBe(id)
  for (const index of stored.keys())
    expect(acked.has(index) || inDoubt.has(index), `${what}: message ${index} was never sent`).toBe(true)
}

/**
 * `pnpm check` runs this at 150 messages per writer and session; `pnpm soak:pg` runs it at 1,500. Which
 * writers are killed, and when, is drawn anew each run (and printed when the run fails). The server keeps
 * synchronous_commit on: an immediate restart kills its processes, not the machine, so what a COMMIT
 * wrote to the kernel survives even with fsync off, and an acknowledged message must be there after it.
 */
describe('many writers on one PostgreSQL server', () => {
  it(
    `${WRITERS} processes × ${MESSAGES} messages to their own and one shared session, with writers SIGKILLed and the server restarted immediately, keep every acknowledged message exactly once and in order, and the counters right`,
    async () => {
      const setup: Store = await openStore({ url: server.url, schema: SCHEMA })
      const shared = (await setup.createSession({ source: 'test' })).id
      const writers: Writer[] = []
      for (let k = 0; k < WRITERS; k++) {
        const own = (await setup.createSession({ source: 'test' })).id
        writers.push({
          own,
          acked: { own: new Map(), shared: new Map() },
          inDoubt: new Set(),
          last: -1,
          next: 0,
        })
      }
      const plan = killPlan()
      const total = () => writers.reduce((n, w) => n + w.acked.shared.size, 0)
      const waitFor = async (fraction: number) => {
        const deadline = Date.now() + STAGE_MS
        while (total() < fraction * WRITERS * MESSAGES) {
          const failed = writers.find((w) => w.child?.proc.exitCode)
          if (failed || Date.now() > deadline)
            expect.fail(
              `writers stopped short of ${fraction} (${JSON.stringify(plan)}):\n${writers.map((w) => w.child?.describe()).join('\n')}`,
            )
          await new Promise((r) => setTimeout(r, 20))
        }
      }
      try {
        for (const [k, w] of writers.entries()) start(w, k, shared)
        // SIGKILL a writer mid-stream, restart the server under all of them, then kill two more.
        const kill = async (k: number) => {
          const writer = writers[k] as Writer
          const child = writer.child as Child
          child.proc.kill('SIGKILL')
          await child.exited
          // The append under way was the shared one of the last index or the own one of the next: either may
          // or may not be stored, so the writer resumes after both.
          writer.inDoubt.add(writer.last).add(writer.last + 1)
          writer.next = writer.last + 2
          // killed at its last message, the writer has nothing left to write and is not started again
          if (writer.next < MESSAGES) start(writer, k, shared)
          else writer.child = undefined
        }
        await waitFor(plan.stages[0])
        await kill(plan.killed[0])
        await waitFor(plan.stages[1])
        server.restartImmediately()
        await waitFor(plan.stages[2])
        await kill(plan.killed[1])
        await waitFor(plan.stages[3])
        await kill(plan.killed[2])
        for (const writer of writers) {
          if (writer.child === undefined) continue
          const exit = await exitWithin(writer.child, 2 * STAGE_MS)
          expect(exit.code, writer.child.describe()).toBe(0)
        }

        const sharedRows = await setup.getStoredMessages(shared)
        for (const [k, writer] of writers.entries()) {
          const ownRows = await setup.getStoredMessages(writer.own)
          expectExactlyOnceInOrder(
            indexesOf(ownRows, k),
            writer.acked.own,
            writer.inDoubt,
            `writer ${k} own, ${JSON.stringify(plan)}`,
          )
          expectExactlyOnceInOrder(
            indexesOf(sharedRows, k),
            writer.acked.shared,
            writer.inDoubt,
            `writer ${k} shared, ${JSON.stringify(plan)}`,
          )
          expect(writer.acked.shared.size).toBeGreaterThanOrEqual(MESSAGES - writer.inDoubt.size)
          expect((await setup.getSession(writer.own))?.messageCount).toBe(ownRows.length)
        }
        expect((await setup.getSession(shared))?.messageCount).toBe(sharedRows.length)
        expect(sharedRows.length).toBeGreaterThanOrEqual(WRITERS * MESSAGES - 2 * 3)
      } finally {
        for (const writer of writers) if (writer.child) killIfRunning(writer.child)
        await setup.close()
      }
    },
    5 * STAGE_MS,
  )
})
