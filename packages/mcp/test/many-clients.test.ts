import { afterAll, expect, it } from 'vitest'
import { loggedSessionId } from '../src/tools/session-log.ts'
import { call, memoryFiles, type Served, serve, withStore, workspace } from './helpers.ts'

const SERVERS = 6
const KILLED = 2
const ROUNDS = 12
const ws = workspace()
const servers: Served[] = []

afterAll(async () => {
  await Promise.all(servers.map((s) => s.client.close().catch(() => undefined)))
})

interface Acks {
  memory: string[]
  refused: number
  logged: string[]
}

async function client(index: number, served: Served, killAfter: number | null): Promise<Acks> {
  const acks: Acks = { memory: [], refused: 0, logged: [] }
  for (let round = 0; round < ROUNDS; round++) {
    const entry = `Client ${index} learned fact number ${round}: the nightly queue drains by six.`
    const messageId = `c${index}-m${round}`
    const memory = call(served.client, 'memory', {
      target: 'memory',
      operations: [{ action: 'add', content: entry }],
    })
    const log = call(served.client, 'session_log', {
      conversation_id: 'shared',
      messages: [{ id: messageId, role: 'user', content: `client ${index} says round ${round} platypus` }],
    })
    if (round === killAfter) {
      // Mid-call: both requests are on the wire and the process dies before (or while) answering.
      served.transport.pid !== null && process.kill(served.transport.pid, 'SIGKILL')
      await Promise.allSettled([memory, log])
      return acks
    }
    const [m, l] = await Promise.all([memory, log]).catch((error: unknown) => {
      // A survivor that stops answering is the failure this test exists to catch: say how its server ended.
      throw new Error(`client ${index}, round ${round}: ${String(error)}; ${served.report()}`)
    })
    if (m.isError) acks.refused++
    else acks.memory.push(entry)
    if (!l.isError) acks.logged.push(messageId)
  }
  return acks
}

it('6 server processes on one store and one pair of memory files, 2 SIGKILLed mid-call, lose no acknowledged write', async () => {
  servers.push(
    ...(await Promise.all(
      Array.from({ length: SERVERS }, () => serve(ws, ['--user', 'alice', '--session-log'])),
    )),
  )
  const results = await Promise.all(
    servers.map((served, i) => client(i, served, i < KILLED ? 3 + i * 2 : null)),
  )
  const acked = results.flatMap((r) => r.memory)
  const logged = results.flatMap((r) => r.logged)

  // A survivor retries everything once, as a client would after a lost answer: nothing is stored twice.
  const survivor = servers[SERVERS - 1] as Served
  const everyId = Array.from(
    { length: SERVERS * ROUNDS },
    (_, n) => `c${Math.floor(n / ROUNDS)}-m${n % ROUNDS}`,
  )
  for (let at = 0; at < everyId.length; at += 50) {
    const retry = await call(survivor.client, 'session_log', {
      conversation_id: 'shared',
      messages: everyId.slice(at, at + 50).map((id) => ({ id, role: 'user', content: `retry of ${id}` })),
    }).catch((error: unknown) => {
      throw new Error(`the survivor's retry: ${String(error)}; ${survivor.report()}`)
    })
    expect(retry.isError).toBeFalsy()
  }

  const { entries, chars, limit } = await memoryFiles(ws).read('memory')
  for (const entry of acked) expect(entries).toContain(entry)
  expect(new Set(entries).size).toBe(entries.length)
  expect(chars).toBeLessThanOrEqual(limit)
  expect(results.reduce((n, r) => n + r.refused, 0)).toBeGreaterThan(0)

  await withStore(ws, async (store) => {
    const messages = await store.getStoredMessages(loggedSessionId({ user: 'alice' }, 'shared'))
    const texts = messages.map((m) => m.content as string)
    for (const id of logged) {
      const [client, round] = id.slice(1).split('-m')
      expect(texts.filter((t) => t === `client ${client} says round ${round} platypus`)).toHaveLength(1)
    }
    // Every id once: the original where it was stored, else the retry.
    expect(messages).toHaveLength(SERVERS * ROUNDS)
    expect((await store.checkIntegrity()).ok).toBe(true)
  })
  console.error(
    `[mcp many-clients] ${SERVERS} servers, ${KILLED} killed: ${acked.length} memory writes acknowledged (all present), ${results.reduce((n, r) => n + r.refused, 0)} refused over the cap, ${logged.length} logged messages acknowledged, ${SERVERS * ROUNDS} stored once each after retries`,
  )
})
