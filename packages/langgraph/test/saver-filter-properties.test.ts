import type { Store } from '@engram/core'
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngramSaver } from '../src/index.ts'
import { ENGINES, engineUnderTest } from './engines.ts'

/** A metadata value of any JSON kind: text (CJK, quotes, NUL and other escapes), numbers, booleans, null, objects, arrays. */
const leaf = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('input', 'loop', '周五', 'a"b', 'x\u0000y', '\n'),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
  fc.boolean(),
  fc.constant(null),
)
const value = fc.oneof(
  leaf,
  fc.dictionary(fc.constantFrom('a', 'b', 'c'), leaf, { maxKeys: 3 }),
  fc.array(leaf, { maxLength: 3 }),
)
const KEYS = ['source', 'step', 'tag', 'weird key', 'ключ'] as const
const metadata = fc.record(Object.fromEntries(KEYS.map((key) => [key, value])), { requiredKeys: [] })

/** JSON equality with object keys in any order: what a filter means (reference, in JavaScript). */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : typeof v === 'object' && v !== null
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))

describe.each(ENGINES)('list() metadata filters on %s', (name) => {
  const engine = engineUnderTest(name)
  let store: Store
  beforeAll(async () => {
    await engine.start()
    store = await engine.open('filters')
  })
  afterAll(async () => {
    await store?.close()
    await engine.stop()
  })

  it('return exactly the checkpoints whose metadata has each key equal (as JSON) to the filter value', async () => {
    const saver = new EngramSaver({ store })
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(metadata, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.nat(), value), { maxLength: 2 }),
        async (metadatas, picks) => {
          const thread = `t${run++}`
          const ids: string[] = []
          for (const meta of metadatas) {
            const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) }
            await saver.put({ configurable: { thread_id: thread } }, checkpoint, meta as never, {})
            ids.push(checkpoint.id)
          }
          // each filter key: often a value some checkpoint holds (with its keys reordered), else a random one
          const filter: Record<string, unknown> = {}
          for (const [key, index, random] of picks) {
            const held = metadatas[index % metadatas.length]?.[key]
            filter[key] =
              held !== undefined && index % 3 !== 0 ? JSON.parse(JSON.stringify(canonical(held))) : random
          }
          const expected = ids.filter((_, i) =>
            Object.entries(filter).every(([key, wanted]) => {
              const held = (metadatas[i] as Record<string, unknown>)[key]
              return (
                held !== undefined &&
                same(JSON.parse(JSON.stringify(held)), JSON.parse(JSON.stringify(wanted)))
              )
            }),
          )
          const found: string[] = []
          for await (const tuple of saver.list({ configurable: { thread_id: thread } }, { filter }))
            found.push(tuple.checkpoint.id)
          expect(found.sort()).toEqual(expected.sort())
        },
      ),
      { numRuns: name === 'pg' || name === 'pglite' ? 40 : 80 },
    )
  })
})
