import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngramSaver } from '../src/index.ts'
import { ENGINES, engineUnderTest } from './engines.ts'

const State = Annotation.Root({
  steps: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  count: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
})

/** A graph of two nodes that each add a step and bump the count. */
function counter(saver: EngramSaver) {
  return new StateGraph(State)
    .addNode('a', (s) => ({ steps: [`a${s.count}`], count: s.count + 1 }))
    .addNode('b', (s) => ({ steps: [`b${s.count}`], count: s.count + 1 }))
    .addEdge(START, 'a')
    .addEdge('a', 'b')
    .addEdge('b', END)
    .compile({ checkpointer: saver })
}

describe.each(ENGINES)('a StateGraph on EngramSaver (%s)', (name) => {
  const engine = engineUnderTest(name)
  beforeAll(() => engine.start())
  afterAll(() => engine.stop())

  it('resumes a thread from a new saver and store, and a fork from an older checkpoint keeps both branches apart', async () => {
    const config = { configurable: { thread_id: 'fork-me' } }
    const first = await engine.open('fork')
    const graph = counter(new EngramSaver({ store: first }))
    await graph.invoke({ steps: ['start'] }, config)
    await first.close()

    // another store on the same database: the thread continues where it was
    const second = await engine.open('fork')
    try {
      const saver = new EngramSaver({ store: second })
      const resumed = counter(saver)
      const state = await resumed.invoke({ steps: ['again'] }, config)
      expect(state.steps).toEqual(['start', 'a0', 'b1', 'again', 'a2', 'b3'])

      // fork from the checkpoint after the first run's node a, then run on from there
      const history = []
      for await (const snapshot of resumed.getStateHistory(config)) history.push(snapshot)
      const afterA = history.find((s) => s.values.count === 1 && s.next.includes('b'))
      expect(afterA).toBeDefined()
      const forked = await resumed.updateState(afterA?.config ?? config, { steps: ['forked'], count: 10 })
      const branch = await resumed.invoke(null, forked)
      expect(branch.steps).toEqual(['start', 'a0', 'forked', 'b10'])
      // the original branch reads back unchanged
      const original = await resumed.getState({ configurable: { ...history[0]?.config.configurable } })
      expect(original.values.steps).toEqual(['start', 'a0', 'b1', 'again', 'a2', 'b3'])
    } finally {
      await second.close()
    }
  })
})
