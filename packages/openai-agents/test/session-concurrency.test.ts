import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { openStore } from '@engram/core'
import { afterEach, expect, it } from 'vitest'
import {
  type Child,
  exitWithin,
  killIfRunning,
  spawnProcess,
  TSX_LOADER,
  waitForLine,
} from '../../core/test/processes/spawn.ts'
import { EngramSession } from '../src/index.ts'
import { tempDatabase } from './agents-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const ROUNDS = 12
const script = fileURLToPath(new URL('./processes/session-writer-child.ts', import.meta.url))

it('processes writing one session at once, and a retry after a SIGKILL, store every item once and lose none', async () => {
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  const store = await openStore({ url: dbPath })
  cleanups.push(() => store.close())
  const session = new EngramSession({ store, sessionId: 'shared' })
  await session.getSessionId()
  const goFile = `${dbPath}.go`
  const writer = (name: string, mode: 'all' | 'transactions'): Child => {
    const child = spawnProcess(process.execPath, [
      '--conditions=engram-source',
      '--import',
      TSX_LOADER,
      script,
      dbPath,
      'shared',
      name,
      goFile,
      String(ROUNDS),
      mode,
    ])
    cleanups.push(() => killIfRunning(child))
    return child
  }
  const a = writer('a', 'all')
  const b = writer('b', 'all')
  const killed = writer('k', 'transactions')
  await Promise.all([a, b, killed].map((child) => waitForLine(child, (line) => line === 'READY', 600_000)))
  const killedMidway = waitForLine(killed, (line) => line === 'DONE 4', 600_000)
  writeFileSync(goFile, '')
  await killedMidway
  killed.proc.kill('SIGKILL')
  expect((await exitWithin(killed, 600_000)).signal).toBe('SIGKILL')
  for (const child of [a, b]) expect((await exitWithin(child, 600_000)).code, child.describe()).toBe(0)
  // The killed writer's run again from its start, as a restarted process retries its transactions.
  const retry = writer('k', 'transactions')
  await waitForLine(retry, (line) => line === 'READY', 600_000)
  expect((await exitWithin(retry, 600_000)).code, retry.describe()).toBe(0)

  const popped = [a, b].flatMap((child) =>
    child
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('POPPED '))
      .map((line) => (JSON.parse(line.slice('POPPED '.length)) as { content: string }).content),
  )
  // Each pop took an item no other pop took.
  expect(popped).toHaveLength(2 * (ROUNDS / 3))
  expect(new Set(popped).size).toBe(popped.length)
  const written = [
    ...Array.from({ length: ROUNDS }, (_, i) => `shared ${i}`),
    ...Array.from({ length: ROUNDS }, (_, i) => `a ${i}`),
    ...Array.from({ length: ROUNDS }, (_, i) => `b ${i}`),
  ]
  const expected = written.filter((content) => !popped.includes(content)).sort()
  const contents = (await session.getItems()).map((item) => (item as { content: string }).content)
  expect(contents.sort()).toEqual(expected)
})
