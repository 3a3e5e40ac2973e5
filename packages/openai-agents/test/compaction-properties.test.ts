import { ContextCompressor } from '@engram/compressor'
import { openStore, type Store } from '@engram/core'
import { type AgentInputItem, protocol } from '@openai/agents'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
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

type Item = Record<string, unknown>
const words = fc
  .array(fc.constantFrom('deploy', 'staging', 'ok', 'step', 'log', 'service', '部署'), { maxLength: 40 })
  .map((w) => w.join(' '))

/** One step of a turn: maybe a reasoning item, then an answer, a function call or a computer call. */
const step = fc.record({
  reasoning: fc.boolean(),
  kind: fc.constantFrom('answer', 'function', 'function', 'computer', 'function-killed'),
  text: words,
})
const turn = fc.record({ ask: words, steps: fc.array(step, { minLength: 1, maxLength: 3 }) })
type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never

/** A history as runs leave it: ids and call ids unique, a killed call without its result. */
function historyOf(turns: readonly Turn[]): Item[] {
  let n = 0
  const items: Item[] = []
  for (const t of turns) {
    items.push({ role: 'user', content: t.ask || 'go' })
    for (const s of t.steps) {
      n++
      if (s.reasoning)
        items.push({ type: 'reasoning', id: `rs_${n}`, content: [{ type: 'input_text', text: `why ${n}` }] })
      if (s.kind === 'answer') {
        items.push({
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: s.text || 'done' }],
        })
      } else if (s.kind === 'computer') {
        items.push({
          type: 'computer_call',
          callId: `cc_${n}`,
          status: 'completed',
          action: { type: 'click', x: n, y: 1, button: 'left' },
        })
        items.push({
          type: 'computer_call_result',
          callId: `cc_${n}`,
          output: { type: 'computer_screenshot', data: 'data:image/png;base64,AAAA' },
        })
      } else {
        items.push({
          type: 'function_call',
          callId: `call_${n}`,
          name: 'deploy',
          arguments: JSON.stringify({ target: s.text }),
          status: 'completed',
        })
        if (s.kind === 'function') {
          items.push({
            type: 'function_call_result',
            callId: `call_${n}`,
            name: 'deploy',
            status: 'completed',
            output: { type: 'text', text: `${s.text} deploy log line\n`.repeat(30) },
          })
        }
      }
    }
  }
  return items
}

const summarizer = { summarize: async () => 'The earlier turns deployed services.' }

let compactions = 0

it('a compacted history keeps every reasoning item before its item and every call with its results', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(turn, { minLength: 1, maxLength: 7 }),
      fc.integer({ min: 700, max: 4000 }),
      async (turns, window) => {
        const history = historyOf(turns)
        for (const item of history) expect(protocol.ModelItem.safeParse(item).success).toBe(true)
        let compacted = false
        const session = new EngramSession({
          store,
          compressor: new ContextCompressor({ window, summarizer }),
          onCompaction: () => {
            compacted = true
          },
        })
        await session.addItems(history as AgentInputItem[])
        await session.runCompaction({ force: true })
        const items = (await session.getItems()) as unknown as Item[]
        // Not compacted (the last turn waits for a result, or nothing could be cut): left as it was.
        if (!compacted) {
          expect(items).toEqual(history)
          return
        }
        compactions++
        const key = (item: Item | undefined) => JSON.stringify(item)
        const at = new Map(history.map((item, i) => [key(item), i]))
        for (const [i, item] of items.entries()) {
          expect(protocol.ModelItem.safeParse(item).success).toBe(true)
          if (item.type === 'reasoning')
            expect(key(items[i + 1])).toBe(key(history[(at.get(key(item)) as number) + 1]))
          if (typeof item.callId !== 'string') continue
          const group = items.filter((other) => other.callId === item.callId)
          // The call comes first, and a call that had a result keeps one.
          expect(String(group[0]?.type)).toMatch(/_call$/)
          expect(items.indexOf(group[0] as Item)).toBeLessThanOrEqual(i)
          const before = history.filter((other) => other.callId === item.callId).length
          expect(group.length).toBeGreaterThanOrEqual(Math.min(2, before))
          if (group[0]?.type === 'function_call')
            expect(group.some((g) => g.type === 'function_call_result')).toBe(true)
        }
      },
    ),
    { numRuns: 60 },
  )
  // Enough draws were compacted for the checks above to mean something.
  expect(compactions).toBeGreaterThan(15)
})
