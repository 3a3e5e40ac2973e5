import { describe, expect, it } from 'vitest'
import { compress } from '../src/compress.ts'
import { isAuthOrNetworkError, SummarizerAbort } from '../src/summarizer.ts'
import { isSummaryMessage, summaryBody } from '../src/summary.ts'
import { bpeTokenCounter, countMessages } from '../src/tokens.ts'
import {
  assistant,
  codingConversation,
  errorWith,
  scriptedSummarizer,
  system,
  user,
  withIds,
} from './helpers.ts'

const conversation = withIds(codingConversation(30), 101)
const window = 32_000
const config = { tailProtectTokens: 3_000 }

describe('compress', () => {
  it('runs all four phases and reports them', async () => {
    const summarizer = scriptedSummarizer('## Goal\nFix the modules')
    const { messages, summary, report } = await compress(conversation, { window, summarizer, config })
    expect(report.status).toBe('compressed')
    expect(report.tokensBefore).toBe(countMessages(bpeTokenCounter, conversation))
    expect(report.tokensAfter).toBe(countMessages(bpeTokenCounter, messages))
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore / 3)
    expect(summary).toBe('## Goal\nFix the modules')
    expect(report.summaryTokens).toBe(bpeTokenCounter.countText('## Goal\nFix the modules'))
    expect(report.usedFallback).toBe(false)
    // Head: the system prompt, then u0, its call, and its result (pruned: the head is not the tail).
    expect(messages.slice(0, 4).map((m) => m.id)).toEqual([101, 102, 103, 104])
    expect(messages[3]?.content).toMatch(
      /^\[tool output pruned: read_file\(src\/module0\.ts\) returned \d+ chars/,
    )
    expect(report.prune.prunedToolOutputs).toBe(1)
    expect(messages.findIndex(isSummaryMessage)).toBe(4)
    expect(messages[4]?.role).toBe('user')
    const firstKept = messages[5]
    expect(firstKept?.role).toBe('assistant')
    expect(report.summarizedIdRange).toEqual({ first: 105, last: (firstKept?.id ?? 0) - 1 })
    expect(report.messagesSummarized).toBe((firstKept?.id ?? 0) - 105)
    expect(report.messagesDropped).toBe(report.messagesSummarized)
    expect(messages.at(-1)).toBe(conversation.at(-1))
    expect(report.firstCompression).toBe(true)
  })

  it('sends the summariser the dropped turns, not the kept ones', async () => {
    const summarizer = scriptedSummarizer('summary')
    await compress(conversation, { window, summarizer, config })
    const [request] = summarizer.requests
    expect(request?.prompt).toContain('Step 1:')
    expect(request?.prompt).not.toContain('Step 0:')
    expect(request?.prompt).not.toContain('Step 29:')
    expect(request?.maxTokens).toBe(1_500)
  })

  it('updates the previous summary on a later pass instead of re-summarising it', async () => {
    const first = await compress(conversation, {
      window,
      summarizer: scriptedSummarizer('first summary'),
      config,
    })
    const grown = [...first.messages, ...withIds(codingConversation(30).slice(1), 1_000)]
    const summarizer = scriptedSummarizer('second summary')
    const second = await compress(grown, { window, summarizer, config })
    expect(summarizer.requests[0]?.previousSummary).toBe('first summary')
    expect(summarizer.requests[0]?.prompt).not.toContain('CONTEXT SUMMARY')
    expect(second.report.firstCompression).toBe(false)
    const summaries = second.messages.filter(isSummaryMessage)
    expect(summaries.map(summaryBody)).toEqual(['second summary'])
    // Later passes do not protect the head: only the system prompt precedes the summary.
    expect(second.messages[1]).toBe(summaries[0])
  })

  it('redacts secrets the summariser echoes and caps its answer at summary_max_tokens', async () => {
    const summarizer = scriptedSummarizer(`key sk-abcdefghijklmnopqrstuvwx ${'word '.repeat(3_000)}`)
    const { summary, report } = await compress(conversation, {
      window,
      summarizer,
      config: { ...config, summaryMaxTokens: 300 },
    })
    expect(summary).not.toContain('sk-abc')
    expect(report.summaryTokens).toBeLessThanOrEqual(300)
  })

  it('falls back to a local summary when the summariser throws', async () => {
    const summarizer = scriptedSummarizer(new Error('model overloaded'))
    const { summary, report } = await compress(conversation, { window, summarizer, config })
    expect(report.status).toBe('compressed')
    expect(report.usedFallback).toBe(true)
    expect(report.reason).toBe('the summariser failed: Error: model overloaded')
    expect(summary).toContain('Summary built locally')
    expect(summary).toMatch(/Latest user ask:\nStep \d+: please look at src\/module\d+\.ts/)
    expect(summary).toContain('1. read_file(src/module1.ts)')
  })

  it.each([[''], ['   \n']])(
    'falls back to a local summary when the summariser answers %j',
    async (answer) => {
      const { report } = await compress(conversation, {
        window,
        summarizer: scriptedSummarizer(answer),
        config,
      })
      expect(report.usedFallback).toBe(true)
      expect(report.reason).toBe('the summariser returned an empty summary')
    },
  )

  it.each([
    ['HTTP 401', errorWith({ status: 401 })],
    ['HTTP 403', errorWith({ status: 403 })],
    ['ECONNREFUSED', errorWith({ code: 'ECONNREFUSED' })],
    [
      'a fetch failure wrapping ENOTFOUND',
      errorWith({ cause: errorWith({ code: 'ENOTFOUND' }) }, 'fetch failed'),
    ],
    ['the SDK connection error', errorWith({ name: 'APIConnectionError' })],
    ['a SummarizerAbort', new SummarizerAbort('the auxiliary model rejected the key')],
  ])('aborts and returns the input unchanged on %s', async (_kind, error) => {
    const { messages, summary, report } = await compress(conversation, {
      window,
      summarizer: scriptedSummarizer(error),
      config,
    })
    expect(report.status).toBe('aborted')
    expect(report.reason).toMatch(/^summariser unreachable or unauthorised/)
    expect(messages).toEqual(conversation)
    for (const [i, m] of messages.entries()) expect(m).toBe(conversation[i])
    expect(summary).toBeNull()
    expect(report.tokensAfter).toBe(report.tokensBefore)
  })

  it("hands the caller's signal to the summariser; a cancelled summary aborts instead of falling back", async () => {
    const controller = new AbortController()
    const seen: (AbortSignal | undefined)[] = []
    const { messages, report } = await compress(conversation, {
      window,
      config,
      signal: controller.signal,
      summarizer: {
        summarize(_request, options) {
          seen.push(options?.signal)
          controller.abort()
          // Any error once the signal fired: the compression is cancelled, not papered over.
          return Promise.reject(new Error('the request was cancelled'))
        },
      },
    })
    expect(seen).toEqual([controller.signal])
    expect(report.status).toBe('aborted')
    expect(report.usedFallback).toBe(false)
    expect(report.reason).toMatch(/^cancelled: /)
    expect(messages).toEqual(conversation)
  })

  it('uses a measured token count and scales the count after by the same ratio', async () => {
    const counted = countMessages(bpeTokenCounter, conversation)
    const { report, messages } = await compress(conversation, {
      window,
      summarizer: scriptedSummarizer('s'),
      config,
      measuredTokens: counted * 2,
    })
    expect(report.tokensBefore).toBe(counted * 2)
    expect(report.tokensAfter).toBe(countMessages(bpeTokenCounter, messages) * 2)
  })

  it('returns the input unchanged when there is nothing to remove', async () => {
    const short = [system(), user('hi'), assistant('hello')]
    const summarizer = scriptedSummarizer('s')
    const { messages, report } = await compress(short, { window: 100_000, summarizer })
    expect(report.status).toBe('unchanged')
    expect(messages).toEqual(short)
    expect(summarizer.requests).toHaveLength(0)
  })

  it('does not repair tool pairs when repair_tool_pairs is off', async () => {
    const broken = [...conversation, { role: 'tool' as const, tool_call_id: 'nowhere', content: 'orphan' }]
    const on = await compress(broken, { window, summarizer: scriptedSummarizer('s'), config })
    expect(on.report.repair.droppedToolResults).toBe(1)
    expect(on.messages.at(-1)).toBe(conversation.at(-1))
    const off = await compress(broken, {
      window,
      summarizer: scriptedSummarizer('s'),
      config: { ...config, repairToolPairs: false },
    })
    expect(off.messages.at(-1)?.content).toBe('orphan')
  })

  it('never mutates its input', async () => {
    const copy = structuredClone(conversation)
    await compress(conversation, { window, summarizer: scriptedSummarizer('s'), config })
    expect(conversation).toEqual(copy)
  })
})

describe('isAuthOrNetworkError', () => {
  it.each([
    [errorWith({ status: 401 }), true],
    [errorWith({ code: 'ETIMEDOUT' }), true],
    [errorWith({ code: 'ECONNRESET' }), true],
    [errorWith({ name: 'AuthenticationError' }), true],
    [errorWith({ status: 500 }), false],
    [errorWith({ status: 429 }), false],
    [new Error('bad json'), false],
    ['a string', false],
    [null, false],
  ])('%s → %s', (error, expected) => {
    expect(isAuthOrNetworkError(error)).toBe(expected)
  })

  it('survives a cyclic cause chain', () => {
    const error = errorWith({}) as Error & { cause?: unknown }
    error.cause = error
    expect(isAuthOrNetworkError(error)).toBe(false)
  })
})
