import { openStore, type Store } from '@engram/core'
import {
  type AgentInputItem,
  MemorySession,
  protocol,
  type SessionHistoryTransactionArgs,
} from '@openai/agents'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { windowStart } from '../src/history.ts'
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

const text = fc.string({ maxLength: 12 })
const callId = fc.constantFrom('call_a', 'call_b', 'call_c')
const json = fc.jsonValue({ maxDepth: 2 })
const providerData = fc.option(fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 2 }), {
  nil: undefined,
})
const part = fc.oneof(
  fc.record({ type: fc.constant('input_text'), text }),
  fc.record({ type: fc.constant('output_text'), text, providerData }),
  fc.record({ type: fc.constant('refusal'), refusal: text }),
  fc.record({ type: fc.constant('input_image'), image: fc.constant('data:image/png;base64,AAAA') }),
  fc.record({ type: fc.constant('input_file'), file: fc.record({ id: text }) }),
)
/** Items of every kind the SDK defines, in both the streamed and non-streamed spellings, and unknown ones. */
const item: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ role: fc.constant('user'), content: fc.oneof(text, fc.array(part, { maxLength: 3 })) }),
  fc.record(
    {
      type: fc.constant('message'),
      id: text,
      role: fc.constantFrom('assistant', 'system', 'developer'),
      status: fc.constantFrom('completed', 'in_progress'),
      content: fc.array(part, { maxLength: 3 }),
      providerData,
    },
    { requiredKeys: ['type', 'role', 'content'] },
  ),
  fc.record(
    {
      type: fc.constant('function_call'),
      id: text,
      callId,
      name: text,
      arguments: text,
      status: fc.constant('completed'),
      providerData,
    },
    { requiredKeys: ['type', 'callId', 'name', 'arguments'] },
  ),
  fc.record({
    type: fc.constant('function_call_result'),
    callId,
    name: text,
    status: fc.constant('completed'),
    output: fc.oneof(text, fc.record({ type: fc.constant('text'), text }), fc.array(part, { maxLength: 2 })),
  }),
  fc.record(
    {
      type: fc.constant('reasoning'),
      id: text,
      content: fc.array(fc.record({ type: fc.constant('input_text'), text }), { maxLength: 2 }),
      providerData,
    },
    { requiredKeys: ['type', 'content'] },
  ),
  fc.record({
    type: fc.constant('hosted_tool_call'),
    name: text,
    arguments: text,
    status: fc.constant('completed'),
    providerData,
  }),
  fc.record({
    type: fc.constant('computer_call'),
    callId,
    status: fc.constant('completed'),
    action: fc.record({ type: fc.constant('click'), x: fc.nat(), y: fc.nat() }),
  }),
  fc.record({
    type: fc.constant('shell_call'),
    callId,
    status: fc.constant('completed'),
    action: fc.record({ commands: fc.array(text, { maxLength: 2 }) }),
  }),
  fc.record({
    type: fc.constant('apply_patch_call_output'),
    callId,
    status: fc.constant('completed'),
    output: text,
  }),
  fc.record({ type: fc.constant('compaction'), encrypted_content: text }),
  fc.record({ type: fc.constantFrom('future_kind', 'x'), payload: json, providerData }),
)
const items = fc.array(item, { maxLength: 8 })
const asItems = (values: Record<string, unknown>[]) => values as unknown as AgentInputItem[]
/** What JSON keeps of a value: the contract is "stored exactly as given, as JSON". */
const jsonOf = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T))

describe('EngramSession items', () => {
  it('every item kind comes back as it was added', async () => {
    await fc.assert(
      fc.asyncProperty(items, items, async (first, second) => {
        const session = new EngramSession({ store })
        await session.addItems(asItems(first))
        await session.addItems(asItems(second))
        expect(await session.getItems()).toEqual(jsonOf([...first, ...second]))
      }),
      { numRuns: 60 },
    )
  })

  it('getItems(limit) is the longest tail of at most limit items that splits no reasoning item or call', () => {
    fc.assert(
      fc.property(items, fc.nat({ max: 10 }), (values, limit) => {
        const start = windowStart(values, limit)
        const window = values.slice(start)
        expect(window.length).toBeLessThanOrEqual(limit)
        const splits = (from: number) =>
          (from > 0 && values[from - 1]?.type === 'reasoning') ||
          values.slice(from).some((v) => {
            const first = values.findIndex((u) => u.callId !== undefined && u.callId === v.callId)
            return first !== -1 && first < from
          })
        if (start < values.length) expect(splits(start)).toBe(false)
        // No longer tail within the limit would do.
        for (let from = Math.max(0, values.length - limit); from < start; from++)
          expect(splits(from)).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it('behaves as the SDK in-memory session under any sequence of changes, transactions and rewrites included', async () => {
    // The in-memory session refuses, in transactions, items its schema does not know (this one keeps
    // them: they round-trip above), so the comparison uses the items both accept.
    const items = fc
      .array(item, { maxLength: 8 })
      .map((values) => values.filter((value) => protocol.ModelItem.safeParse(value).success))
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), items }),
      fc.constant({ kind: 'pop' as const }),
      fc.constant({ kind: 'clear' as const }),
      fc.constant({ kind: 'retry' as const }),
      fc.record({ kind: fc.constant('rewrite' as const), callId, name: text }),
      fc.record({ kind: fc.constant('append' as const), id: fc.constantFrom('op1', 'op2', 'op3'), items }),
      fc.record({
        kind: fc.constant('replace' as const),
        id: fc.constantFrom('op1', 'op2', 'op3'),
        suffix: fc.nat({ max: 3 }),
        stale: fc.boolean(),
        items,
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 10 }), async (ops) => {
        const engram = new EngramSession({ store })
        const memory = new MemorySession()
        let last: SessionHistoryTransactionArgs | undefined
        for (const o of ops) {
          let args: SessionHistoryTransactionArgs | undefined
          if (o.kind === 'append') {
            args = { operationId: o.id, transaction: { type: 'append_items', items: asItems(o.items) } }
          } else if (o.kind === 'replace') {
            const current = await memory.getItems()
            args = {
              operationId: o.id,
              transaction: {
                type: 'replace_suffix',
                expectedSuffix: o.stale
                  ? asItems([{ role: 'user', content: 'stale' }])
                  : current.slice(current.length - Math.min(o.suffix, current.length)),
                replacement: asItems(o.items),
              },
            }
          } else if (o.kind === 'retry') args = last
          last = args ?? last
          const apply = async (session: EngramSession | MemorySession): Promise<unknown> => {
            if (o.kind === 'add') return session.addItems(asItems(o.items))
            if (o.kind === 'pop') return session.popItem()
            if (o.kind === 'clear') return session.clearSession()
            if (o.kind === 'rewrite') {
              const replacement = {
                type: 'function_call',
                callId: o.callId,
                name: o.name,
                arguments: '{}',
              } as const
              return session.applyHistoryMutations({
                mutations: [{ type: 'replace_function_call', callId: o.callId, replacement }],
              })
            }
            // A retry hands over a copy of the same transaction.
            return args && session.applyHistoryTransaction(o.kind === 'retry' ? structuredClone(args) : args)
          }
          // Both are asked with the state before the change.
          const [ours, theirs] = await Promise.allSettled([apply(engram), apply(memory)])
          expect(ours.status).toBe(theirs.status)
          if (ours.status === 'fulfilled' && theirs.status === 'fulfilled')
            expect(jsonOf(ours.value)).toEqual(jsonOf(theirs.value))
          expect(await engram.getItems()).toEqual(jsonOf(await memory.getItems()))
        }
      }),
      { numRuns: 60 },
    )
  })

  it('a repeated operation id is applied once; another change under it, or a stale suffix, changes nothing', async () => {
    const session = new EngramSession({ store })
    const hello = asItems([{ role: 'user', content: 'hello' }])
    const append = { operationId: 'op', transaction: { type: 'append_items' as const, items: hello } }
    await session.applyHistoryTransaction(append)
    await session.applyHistoryTransaction(jsonOf(append))
    expect(await session.getItems()).toEqual(hello)
    await expect(
      session.applyHistoryTransaction({
        operationId: 'op',
        transaction: { type: 'append_items', items: [] },
      }),
    ).rejects.toThrow(/already applied with another transaction; nothing was changed/)
    await expect(
      session.applyHistoryTransaction({
        operationId: 'op2',
        transaction: {
          type: 'replace_suffix',
          expectedSuffix: asItems([{ role: 'user', content: 'bye' }]),
          replacement: [],
        },
      }),
    ).rejects.toThrow(/no longer match the transaction's expected suffix; nothing was changed/)
    await session.applyHistoryTransaction({
      operationId: 'op2',
      transaction: {
        type: 'replace_suffix',
        expectedSuffix: hello,
        replacement: asItems([{ role: 'user', content: 'hi' }]),
      },
    })
    expect(await session.getItems()).toEqual([{ role: 'user', content: 'hi' }])
    // The replaced item stays searchable: history is archived, never deleted.
    const id = await session.getSessionId()
    expect((await store.search('hello', { sessionId: id })).length).toBe(1)
  })

  it('replaceHistoryWithCompaction swaps the history for the compaction in one batch, the old one kept for search', async () => {
    const session = new EngramSession({ store })
    await session.addItems(asItems([{ role: 'user', content: 'the old ask about gardening' }]))
    const id = await session.getSessionId()
    const before = (await store.getMessages(id)).length
    const compacted = asItems([
      { type: 'compaction', encrypted_content: 'enc' },
      { role: 'user', content: 'the latest ask' },
    ])
    await session.replaceHistoryWithCompaction(compacted)
    expect(await session.getItems()).toEqual(compacted)
    // One marker and the two items, written together.
    expect((await store.getMessages(id)).length).toBe(before + 3)
    expect((await store.search('gardening', { sessionId: id })).length).toBe(1)
  })
})
