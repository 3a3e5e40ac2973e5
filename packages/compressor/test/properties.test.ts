import type { ChatMessage } from '@engram/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { shouldCompress } from '../src/budget.ts'
import { compress } from '../src/compress.ts'
import { isSummaryMessage } from '../src/summary.ts'
import { bpeTokenCounter, countMessages } from '../src/tokens.ts'
import { scriptedSummarizer } from './helpers.ts'

const words = fc
  .array(
    fc.constantFrom('fix', 'the', 'bug', 'in', 'src/app.ts', 'test', 'failed', 'ok', '修复', 'now', '\n'),
    {
      minLength: 8,
      maxLength: 120,
    },
  )
  .map((w) => w.join(' '))
const output = fc.oneof(
  words,
  words.map((w) => w.repeat(20)),
)

/** One user turn: the ask, zero to three rounds of tool calls with their results, and usually a reply. */
const turn = fc.record({
  ask: words,
  rounds: fc.array(
    fc.array(fc.tuple(fc.constantFrom('read_file', 'run', 'grep'), words, output), {
      minLength: 1,
      maxLength: 3,
    }),
    {
      maxLength: 3,
    },
  ),
  reply: fc.option(words, { nil: undefined }),
  shuffleResults: fc.boolean(),
})

const conversation = fc
  .tuple(fc.array(turn, { minLength: 6, maxLength: 25 }), fc.boolean())
  .map(([turns, withSystem]) => {
    const messages: ChatMessage[] = withSystem ? [{ role: 'system', content: 'You are a coding agent.' }] : []
    let id = 0
    for (const t of turns) {
      messages.push({ role: 'user', content: t.ask })
      for (const round of t.rounds) {
        const calls = round.map(([name, arg]) => ({
          id: `call_${id++}`,
          type: 'function' as const,
          function: { name, arguments: JSON.stringify({ path: arg }) },
        }))
        messages.push({ role: 'assistant', content: null, tool_calls: calls })
        const results = round.map(([, , out], i) => ({
          role: 'tool' as const,
          tool_call_id: calls[i]?.id as string,
          content: out,
        }))
        messages.push(...(t.shuffleResults ? results.reverse() : results))
      }
      if (t.reply !== undefined || t.rounds.length === 0)
        messages.push({ role: 'assistant', content: t.reply ?? 'ok' })
    }
    return messages
  })

/** Throws unless every tool call is answered right after it, once, and every tool result answers such a call. */
function expectValidToolPairs(messages: readonly ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as ChatMessage
    if (message.role === 'tool') throw new Error(`orphaned tool result at ${i}`)
    if (!message.tool_calls?.length) continue
    const expected = message.tool_calls.map((c) => c.id).sort()
    const answered: string[] = []
    while (messages[i + 1]?.role === 'tool') answered.push(messages[++i]?.tool_call_id ?? '')
    expect(answered.sort()).toEqual(expected)
  }
}

function hasRepeatedRole(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (m, i) => i > 0 && (m.role === 'user' || m.role === 'assistant') && messages[i - 1]?.role === m.role,
  )
}

const settings = fc.record({
  headProtectMessages: fc.integer({ min: 0, max: 5 }),
  tailProtectTokens: fc.integer({ min: 0, max: 6_000 }),
  toolOutputCharLimit: fc.integer({ min: 50, max: 400 }),
  /** How full the window is: over 1 means compression is due. */
  fill: fc.double({ min: 0.5, max: 2, noNaN: true }),
})

describe('compress, for random conversations with tool calls', () => {
  it('keeps tool pairs valid, roles alternating, the system prompt and the last user message, and shrinks when due', async () => {
    await fc.assert(
      fc.asyncProperty(conversation, settings, async (messages, { fill, ...config }) => {
        const tokens = countMessages(bpeTokenCounter, messages)
        const replyBudgetTokens = 1_000
        const window = Math.round(tokens / 0.75 / fill) + replyBudgetTokens
        const due = shouldCompress(tokens, window, { triggerRatio: 0.75, replyBudgetTokens })
        const summarizer = scriptedSummarizer('## Goal\nkeep fixing')
        const { messages: out, report } = await compress(messages, {
          window,
          summarizer,
          config: { ...config, replyBudgetTokens },
        })

        expectValidToolPairs(out)
        if (!hasRepeatedRole(messages)) expect(hasRepeatedRole(out)).toBe(false)
        if (messages[0]?.role === 'system') expect(out[0]).toBe(messages[0])
        const lastUser = messages.findLast((m) => m.role === 'user')
        expect(out).toContain(lastUser)
        expect(out.filter(isSummaryMessage).length).toBeLessThanOrEqual(1)
        if (due) {
          expect(report.status).toBe('compressed')
          expect(countMessages(bpeTokenCounter, out)).toBeLessThan(tokens)
        }
      }),
      { numRuns: 150 },
    )
  })

  it('repairs conversations that lost random messages into valid tool pairing', async () => {
    const damaged = conversation.chain((messages) =>
      fc
        .uniqueArray(fc.integer({ min: 0, max: messages.length - 1 }), { maxLength: 6 })
        .map((drop) => messages.filter((_, i) => !drop.includes(i))),
    )
    await fc.assert(
      fc.asyncProperty(damaged, async (messages) => {
        const tokens = countMessages(bpeTokenCounter, messages)
        const { messages: out } = await compress(messages, {
          window: tokens + 4_096,
          summarizer: scriptedSummarizer('summary'),
          config: { tailProtectTokens: 500 },
        })
        expectValidToolPairs(out)
      }),
      { numRuns: 100 },
    )
  })
})
