import type { ChatMessage } from '@engram/core'
import { describe, expect, it } from 'vitest'
import { shouldCompress, triggerThreshold } from '../src/budget.ts'
import { compress } from '../src/compress.ts'
import type { CompressibleMessage } from '../src/messages.ts'
import { isSummaryMessage } from '../src/summary.ts'
import { bpeTokenCounter, countMessages } from '../src/tokens.ts'
import session from './fixtures/coding-session.json' with { type: 'json' }
import { scriptedSummarizer } from './helpers.ts'

const messages = session as CompressibleMessage[]
const window = 100_000
const SUMMARY = '## Goal\nFix and harden the shop API.\n## Current state\nAll tests pass.'

function render(message: ChatMessage, index: number): string {
  const id = (message as CompressibleMessage).id ?? '—'
  const text = typeof message.content === 'string' ? message.content.split('\n')[0]?.slice(0, 90) : ''
  const calls = (message.tool_calls ?? []).map(
    (c) => `${c.function.name}(${c.function.arguments.length} chars)`,
  )
  return `${index} #${id} ${message.role}${calls.length ? ` ${calls.join(', ')}` : ''}: ${text}`
}

describe('golden: a 200-turn coding session', async () => {
  const summarizer = scriptedSummarizer(SUMMARY)
  const { messages: out, report } = await compress(messages, { window, summarizer })

  it('was due for compression and ends well under the trigger', () => {
    expect(messages).toHaveLength(401)
    expect(shouldCompress(report.tokensBefore, window)).toBe(true)
    expect(report.tokensBefore).toBe(countMessages(bpeTokenCounter, messages))
    expect(report.tokensAfter).toBeLessThan(
      triggerThreshold(window, { triggerRatio: 0.75, replyBudgetTokens: 4_096 }) / 2,
    )
    expect(report.tokensAfter).toBe(countMessages(bpeTokenCounter, out))
  })

  it('keeps the system prompt and head, then the summary, then a tail of whole exchanges', () => {
    // Head: the system prompt, the first ask, and the .env read with its result (pruned, so no secret stays).
    expect(out.slice(0, 4).map((m) => m.id)).toEqual([1, 2, 3, 4])
    expect(out[0]).toBe(messages[0])
    expect(out[3]?.content).toMatch(
      /^\[tool output pruned: read_file\(\.env\) returned \d+ chars, 24 lines\]$/,
    )
    expect(out[4]?.role).toBe('user')
    expect(out[4] && isSummaryMessage(out[4])).toBe(true)
    expect(out.filter(isSummaryMessage)).toHaveLength(1)
    const tail = out.slice(5)
    expect(tail[0]?.role).toBe('assistant')
    const firstTailId = tail[0]?.id ?? 0
    expect(tail.map((m) => m.id)).toEqual(messages.slice(firstTailId - 1).map((m) => m.id))
    for (const [i, m] of tail.entries()) expect(m).toBe(messages[firstTailId - 1 + i])
    expect(report.summarizedIdRange).toEqual({ first: 5, last: firstTailId - 1 })
    expect(out).toContain(messages.findLast((m) => m.role === 'user'))
  })

  it('sends only redacted, clipped middle turns to the summariser', () => {
    const [request] = summarizer.requests
    expect(request?.prompt).not.toMatch(/sk-live|5up3r-s3cret/)
    expect(request?.prompt).toContain(messages[4]?.content as string)
    expect(request?.prompt).toContain('chars omitted')
    expect(request?.prompt).not.toContain(messages[0]?.content as string)
  })

  it('has valid tool pairs', () => {
    expect(report.repair).toEqual({ droppedToolResults: 0, stubbedToolCalls: 0 })
    out.forEach((m, i) => {
      if (m.role === 'tool')
        expect(out[i - 1]?.role === 'tool' || out[i - 1]?.tool_calls?.length).toBeTruthy()
    })
  })

  it('matches the stored snapshot', async () => {
    const snapshot = [JSON.stringify(report, null, 2), '', ...out.map(render), ''].join('\n')
    await expect(snapshot).toMatchFileSnapshot('./fixtures/coding-session.expected.txt')
  })
})
