import { fileURLToPath } from 'node:url'
import type { DriverName } from '@engram/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitWithin, killIfRunning, spawnProcess, TSX_LOADER } from '../../core/test/processes/spawn.ts'
import { EngramSaver } from '../src/index.ts'
import { engineUnderTest } from './engines.ts'
import { sharedStep } from './shared-thread.ts'

const script = fileURLToPath(new URL('./processes/saver-writer-child.ts', import.meta.url))
const PROCESSES = 3
const STEPS = 25

// The engines where separate processes share one database: an SQLite file, a PostgreSQL server.
describe.each<DriverName>(['better-sqlite3', 'pg'])('several processes writing one thread (%s)', (name) => {
  const engine = engineUnderTest(name)
  beforeAll(() => engine.start())
  afterAll(() => engine.stop())

  it('store every checkpoint, channel value and pending write once', async () => {
    const store = await engine.open('shared') // migrated before the writers start
    try {
      const options = engine.options('shared')
      const writers = Array.from({ length: PROCESSES }, () =>
        spawnProcess(process.execPath, [
          '--conditions=engram-source',
          '--import',
          TSX_LOADER,
          script,
          options.url as string,
          options.schema ?? '-',
          String(STEPS),
        ]),
      )
      try {
        for (const writer of writers) {
          const exit = await exitWithin(writer, 600_000)
          expect(exit, writer.describe()).toEqual({ code: 0, signal: null })
          expect(writer.stdout().trim()).toBe('DONE')
        }
      } finally {
        for (const writer of writers) killIfRunning(writer)
      }
      const saver = new EngramSaver({ store })
      const tuples = []
      for await (const tuple of saver.list({ configurable: { thread_id: 'shared' } })) tuples.push(tuple)
      expect(tuples).toHaveLength(STEPS)
      for (const [index, tuple] of tuples.entries()) {
        const step = sharedStep(STEPS - 1 - index)
        expect(tuple.checkpoint).toEqual(step.checkpoint)
        expect(tuple.metadata).toEqual(step.metadata)
        expect(tuple.pendingWrites).toEqual(
          step.writes.flatMap(([taskId, writes]) =>
            writes.map(([channel, value]) => [taskId, channel, value]),
          ),
        )
      }
    } finally {
      await store.close()
    }
  })
})
