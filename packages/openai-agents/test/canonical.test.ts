import { openStore, type Store } from '@engram/core'
import type { AgentInputItem, SessionHistoryTransactionArgs } from '@openai/agents'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { canonicalJson } from '../src/canonical.ts'
import { EngramSession } from '../src/index.ts'
import { tempDatabase } from './agents-helpers.ts'

let store: Store
let cleanup: () => void
beforeAll(async () => {
  const db = tempDatabase()
  cleanup = db.cleanup
  store = await openStore({ url: db.dbPath })
})
afterAll(async () => {
  await store.close()
  cleanup()
})

/** Keys that are special to JavaScript objects, beside ordinary ones. */
const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'),
  fc.string({ maxLength: 6 }),
)
/** An object with these entries as own keys (as JSON.parse makes them: `__proto__` is a key, not the prototype). */
const objectOf = (entries: readonly (readonly [string, unknown])[]) => {
  const object: Record<string, unknown> = {}
  for (const [k, v] of entries)
    Object.defineProperty(object, k, { value: v, enumerable: true, writable: true, configurable: true })
  return object
}
type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false),
    fc.integer(),
    fc.string({ maxLength: 6 }),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.uniqueArray(fc.tuple(key, tie('json')), { maxLength: 4, selector: ([k]) => k }).map(objectOf),
  ) as fc.Arbitrary<Json>,
}))

/** An array-index key ("0", "17"; not "01" or "-1"): JavaScript lists those first, in numeric order. */
const isIndex = (k: string) => /^(0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1

/**
 * The expected text, written out by hand: every own key at every depth, array-index keys first in numeric
 * order (as JavaScript orders any object's keys, so the digests already stored keep their text), then the
 * others sorted.
 */
function reference(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`
  const all = Object.keys(value)
  const keys = [
    ...all.filter(isIndex).sort((a, b) => Number(a) - Number(b)),
    ...all.filter((k) => !isIndex(k)).sort(),
  ]
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(value[k] as Json)}`).join(',')}}`
}

/** The same value with every object's keys in reverse order. */
function reversed(value: Json): Json {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(reversed)
  return objectOf(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reversed(value[k] as Json)] as const),
  ) as Json
}

it('canonicalJson keeps every key (__proto__, constructor, prototype too), sorted, whatever the key order', () => {
  fc.assert(
    fc.property(json, (value) => {
      expect(canonicalJson(value)).toBe(reference(value))
      expect(canonicalJson(reversed(value))).toBe(canonicalJson(value))
    }),
    { numRuns: 500 },
  )
})

const asItems = (values: unknown[]) => values as AgentInputItem[]

it('an operation id reused with other content under __proto__ is refused, and nothing is lost or changed', async () => {
  const session = new EngramSession({ store })
  const first = JSON.parse(
    '[{"type":"future_kind","payload":{"__proto__":{"secret":"first"}}}]',
  ) as AgentInputItem[]
  const second = JSON.parse(
    '[{"type":"future_kind","payload":{"__proto__":{"secret":"second"}}}]',
  ) as AgentInputItem[]
  await session.applyHistoryTransaction({
    operationId: 'op-proto',
    transaction: { type: 'append_items', items: first },
  })
  await expect(
    session.applyHistoryTransaction({
      operationId: 'op-proto',
      transaction: { type: 'append_items', items: second },
    }),
  ).rejects.toThrow(/already applied with another transaction; nothing was changed/)
  const items = await session.getItems()
  expect(JSON.stringify(items)).toBe(JSON.stringify(first))
  // The same content again (keys in another order) is the same operation: accepted, stored once.
  await session.applyHistoryTransaction({
    operationId: 'op-proto',
    transaction: { type: 'append_items', items: JSON.parse(JSON.stringify(first)) },
  })
  expect(await session.getItems()).toHaveLength(1)
})

it('items that are not an array of items are refused with the argument named, and nothing is written', async () => {
  const session = new EngramSession({ store })
  await session.addItems(asItems([{ role: 'user', content: 'kept' }]))
  const id = await session.getSessionId()
  const before = (await store.getMessages(id)).length
  const cases: [SessionHistoryTransactionArgs, RegExp][] = [
    [
      { operationId: 'a', transaction: { type: 'append_items', items: null as never } },
      /append_items: items must be an array of items \(got null\)/,
    ],
    [
      {
        operationId: 'b',
        transaction: { type: 'replace_suffix', expectedSuffix: 'x' as never, replacement: [] },
      },
      /replace_suffix: expectedSuffix must be an array of items \(got string\)/,
    ],
    [
      {
        operationId: 'c',
        transaction: { type: 'replace_suffix', expectedSuffix: [], replacement: [null] as never },
      },
      /replace_suffix: replacement must be an array of items/,
    ],
    [{ operationId: 'd', transaction: null as never }, /needs a transaction object/],
  ]
  for (const [args, message] of cases) {
    const error = await session.applyHistoryTransaction(args).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect((error as Error).message).toMatch(message)
  }
  await expect(session.addItems(null as never)).rejects.toThrow(/addItems: items must be an array/)
  expect((await store.getMessages(id)).length).toBe(before)
  expect(await session.getItems()).toEqual([{ role: 'user', content: 'kept' }])
})
