import fc from 'fast-check'
import { expect, it } from 'vitest'
import type { HitRow } from '../src/dialects/dialect.ts'
import { askedRows, orderWithoutSearched, statementsFirst } from '../src/search/asked.ts'

const row = (id: number, session: string, role: 'user' | 'assistant' | 'tool', text: string): HitRow => ({
  session_id: session,
  item_id: id,
  role,
  timestamp: id,
  source: 'test',
  snippet: null,
  excerpt: text,
  score: 0,
})

// Statements, questions and quotes of each other over a few words, in a few sessions.
const TEXTS = [
  'we moved the release window to thursday',
  'when is the release window?',
  'Noted: "we moved the release window to thursday"',
  'the deploy runs at noon',
  'what did we decide about the deploy?',
  '发布窗口改到周四下午。',
  '上次说的发布窗口是什么时候？',
]
const rowsArb = fc
  .array(
    fc.record({
      session: fc.constantFrom('a', 'b', 'c'),
      role: fc.constantFrom('user', 'assistant', 'tool') as fc.Arbitrary<'user' | 'assistant' | 'tool'>,
      text: fc.constantFrom(...TEXTS),
    }),
    { maxLength: 24 },
  )
  .map((specs) => specs.map((s, i) => row(i + 1, s.session, s.role, s.text)))

it('skips the read of searched questions only when no answer to it could change what is shown', () => {
  fc.assert(
    fc.property(
      rowsArb,
      fc.constantFrom(['release'], ['deploy'], ['window', 'thursday'], ['发布窗口']),
      fc.integer({ min: 1, max: 25 }),
      fc.array(fc.boolean(), { maxLength: 24 }),
      (rows, words, take, picks) => {
        const order = orderWithoutSearched(rows, words, take)
        if (order === null) return
        // whichever question rows the read would have found, the shown rows and the pool decision agree
        const searched = new Set(askedRows(rows).flatMap((r, i) => (picks[i] ? [r.item_id] : [])))
        const real = statementsFirst(rows, words, searched)
        expect(order.rows.slice(0, take)).toEqual(real.rows.slice(0, take))
        expect(real.statements >= take).toBe(order.statements >= take)
      },
    ),
    { numRuns: 2000 },
  )
})

it('reads the searched questions when a question could rank among the rows shown', () => {
  const rows = [
    row(1, 'a', 'user', 'when is the release window?'),
    row(2, 'a', 'assistant', 'we moved the release window to thursday'),
  ]
  expect(orderWithoutSearched(rows, ['release'], 2)).toBeNull()
  expect(orderWithoutSearched(rows, ['release'], 1)).toBeNull()
  // the question ranks below the statement that is shown: nothing to read
  expect(orderWithoutSearched([...rows].reverse(), ['release'], 1)?.rows[0]?.item_id).toBe(2)
})
