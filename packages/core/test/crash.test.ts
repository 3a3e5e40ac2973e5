import { describe, expect, it } from 'vitest'
import { type DriverName, openStore, type StoredMessage } from '../src/index.ts'
import { driversUnderTest, tempDbPath, tempDir } from './helpers.ts'
import { crashMessage } from './processes/crash-messages.ts'
import { exitWithin, killIfRunning, spawnScript } from './processes/spawn.ts'

/** How many resolved appends the parent reads in each round before it kills the writer. */
const KILL_AFTER = [200, 1100, 350]

const shape = (m: StoredMessage) => ({
  role: m.role,
  content: m.content,
  tool_calls: m.tool_calls,
  tool_call_id: m.tool_call_id,
  name: m.name,
})

/**
 * Starts a writer, reads its `<id> <i>` lines until `killAfter` of them have arrived, then kills it with
 * SIGKILL while it is still writing. Returns the ids whose append had resolved, by message index.
 * `limitMs` is this round's share of the test's time limit: a round that stalls fails naming itself and how
 * far its writer got, before the limit of the whole test fires with nothing to say.
 */
async function writeAndKill(
  path: string,
  driver: DriverName,
  sessionId: string,
  round: number,
  killAfter: number,
  limitMs: number,
): Promise<{ resolved: Map<number, number>; stderr: string }> {
  const child = spawnScript('crash-writer.ts', [path, driver, sessionId, String(round)])
  const resolved = new Map<number, number>()
  try {
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `Round ${round}: only ${resolved.size} of ${killAfter} appends in ${Math.round(limitMs / 1000)} s ` +
                `(its share of the test's time limit).\n${child.describe()}`,
            ),
          ),
        limitMs,
      )
      child.onLine((line) => {
        const [id, i] = line.split(' ').map(Number)
        if (id === undefined || i === undefined || !Number.isInteger(id) || !Number.isInteger(i)) {
          fail(new Error(`Unexpected line ${JSON.stringify(line)}.\n${child.describe()}`))
          return
        }
        resolved.set(i, id)
        if (resolved.size === killAfter) {
          // Kill from inside the data handler: the child is mid-loop, with more appends in flight.
          child.proc.kill('SIGKILL')
          clearTimeout(timer)
          done()
        }
      })
      child.exited.then(() => {
        clearTimeout(timer)
        fail(new Error(`The writer exited on its own after ${resolved.size} appends.\n${child.describe()}`))
      }, fail)
    })
    const exit = await exitWithin(child, limitMs)
    expect(exit.signal, child.describe()).toBe('SIGKILL')
  } finally {
    killIfRunning(child)
  }
  // Lines that were already in the pipe when the kill landed are resolved appends too.
  for (const line of child.stdout().split('\n')) {
    const [id, i] = line.split(' ').map(Number)
    if (id !== undefined && i !== undefined && Number.isInteger(id) && Number.isInteger(i))
      resolved.set(i, id)
  }
  return { resolved, stderr: child.stderr() }
}

for (const driver of driversUnderTest()) {
  describe(`crash safety on ${driver}`, () => {
    const dir = tempDir(`engram-crash-${driver}-`)

    it('a writer killed with SIGKILL mid-write loses no resolved append and leaves a sound database, round after round', async ({
      task,
    }) => {
      // Each round gets an equal share of what is left of the test's limit (a tenth kept for the checks).
      const deadline = Date.now() + task.timeout * 0.9
      const path = tempDbPath(dir)
      const setup = await openStore({ url: path, driver })
      const sessionId = (await setup.createSession({ source: 'crash-test' })).id
      await setup.close()

      const expected: { round: number; i: number; id: number }[] = []
      for (const [round, killAfter] of KILL_AFTER.entries()) {
        const share = (deadline - Date.now()) / (KILL_AFTER.length - round)
        const { resolved, stderr } = await writeAndKill(path, driver, sessionId, round, killAfter, share)
        expect(resolved.size, stderr).toBeGreaterThanOrEqual(killAfter)
        for (const [i, id] of resolved) expected.push({ round, i, id })

        // Reopen after the crash: recovery must neither lose nor corrupt anything.
        const store = await openStore({ url: path, driver })
        try {
          const integrity = await store.checkIntegrity()
          expect(integrity, `round ${round}`).toEqual({
            ok: true,
            status: 'ok',
            database: ['ok'],
            searchIndex: { messages: 'ok', episodes: 'ok' },
            fix: null,
          })

          const stored = await store.getStoredMessages(sessionId)
          const byId = new Map(stored.map((m) => [m.id, m]))
          for (const { round: r, i, id } of expected) {
            const message = byId.get(id)
            expect(message, `round ${r} message ${i} (id ${id}) was acknowledged but is gone`).toBeDefined()
            expect(shape(message as StoredMessage), `round ${r} message ${i} (id ${id})`).toEqual(
              shape({
                ...crashMessage(r, i),
                id,
                sessionId,
                timestamp: 0,
                tokenCount: null,
              } as StoredMessage),
            )
          }

          // Every row there is, acknowledged or not, is one whole message of the sequence: each round's
          // rows are messages 0, 1, 2, ... of that round in id order, with no gap and no duplicate.
          const rounds = KILL_AFTER.slice(0, round + 1).map((_, r) => r)
          let next = 0
          for (const r of rounds) {
            let i = 0
            while (next < stored.length) {
              const want = crashMessage(r, i)
              const got = stored[next] as StoredMessage
              if (shape(got).content !== want.content || got.role !== want.role) break
              expect(shape(got)).toEqual(shape({ ...want } as StoredMessage))
              next += 1
              i += 1
            }
            const acknowledged = expected.filter((e) => e.round === r).length
            expect(i, `round ${r}: rows in the file vs acknowledged appends`).toBeGreaterThanOrEqual(
              acknowledged,
            )
            // At most the one append in flight when the kill landed can be there unacknowledged.
            expect(i - acknowledged, `round ${r}: unacknowledged rows`).toBeLessThanOrEqual(1)
          }
          expect(next, 'rows that belong to no round').toBe(stored.length)

          // The search index agrees with the rows for Chinese text: a query of CJK characters only finds
          // exactly the rows that hold it, the acknowledged ones among them.
          const chinese = stored.filter((m) => String(m.content).includes('部署日志')).map((m) => m.id)
          const acknowledgedChinese = expected.filter((e) => e.i % 4 === 1).map((e) => e.id)
          expect(chinese.length, `round ${round}`).toBeGreaterThanOrEqual(acknowledgedChinese.length)
          expect(acknowledgedChinese.length, `round ${round}`).toBeGreaterThan(0)
          expect(chinese.length).toBeLessThan(1000)
          const hits = await store.search('部署日志', { sessionId, limit: 1000 })
          expect(hits.map((h) => h.messageId as number).sort((a, b) => a - b)).toEqual(chinese)
          expect(chinese).toEqual(expect.arrayContaining(acknowledgedChinese))
        } finally {
          await store.close()
        }
      }
    })
  })
}
