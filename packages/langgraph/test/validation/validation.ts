import type { DriverName, Store } from '@engram/core'
import { validate } from '@langchain/langgraph-checkpoint-validation'
import { EngramSaver } from '../../src/index.ts'
import { engineUnderTest } from '../engines.ts'

/**
 * LangGraph's own checkpointer suite (@langchain/langgraph-checkpoint-validation 1.1.1) on one engine: one
 * store for the file, a new EngramSaver for each group of tests, and every thread deleted after the group
 * (through deleteThread, as a user would), so groups never see each other's checkpoints.
 */
export function validateOn(name: DriverName): void {
  const engine = engineUnderTest(name)
  let store: Store
  validate<EngramSaver>({
    checkpointerName: `EngramSaver on ${name}`,
    beforeAllTimeout: 120_000,
    async beforeAll() {
      await engine.start()
      store = await engine.open()
    },
    async afterAll() {
      await store?.close()
      await engine.stop()
    },
    createCheckpointer: () => new EngramSaver({ store }),
    async destroyCheckpointer(saver) {
      const threads = new Set<string>()
      for await (const tuple of saver.list({})) threads.add(tuple.config.configurable?.thread_id as string)
      for (const thread of threads) await saver.deleteThread(thread)
    },
  })
}
