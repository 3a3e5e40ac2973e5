import { bpeTokenCounter, buildSummaryRequest, countMessages, SUMMARY_SECTIONS } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { workGrowth } from '../../core/src/testing/work.ts'
import { createOfflineModel, type ToolResult, type ToolSpec, toolResultText } from '../src/index.ts'
import { offlineSummary } from '../src/providers/offline-summary.ts'
import { termsOf } from '../src/providers/offline-text.ts'
import { renderSessionSearch, type SessionSearchResult } from '../src/tools/session-search.ts'

const tools: ToolSpec[] = [
  { name: 'memory', description: 'm', parameters: { type: 'object', properties: {} } },
  { name: 'session_search', description: 's', parameters: { type: 'object', properties: {} } },
]
const model = createOfflineModel()
const ask = (content: string, withTools = tools) =>
  model.chat({ system: 'sys', messages: [{ role: 'user', content }], tools: withTools })
const args = (result: Awaited<ReturnType<typeof ask>>) =>
  result.message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])

describe('offline model', () => {
  it.each([
    [
      'Remember that the build cache lives in /var/cache/ci.',
      'memory',
      'the build cache lives in /var/cache/ci',
    ],
    ['Please remember: I like short answers.', 'user', 'I like short answers'],
    ['记住：我的时区是东八区。', 'user', '我的时区是东八区'],
    ['记住我们的仓库在 GitLab 上', 'memory', '我们的仓库在 GitLab 上'],
  ])('"%s" → memory add to %s', async (text, target, content) => {
    const result = await ask(text)
    expect(result.finishReason).toBe('tool_calls')
    expect(args(result)).toEqual([['memory', { target, action: 'add', content }]])
  })

  it.each([
    ['What did I say about the deploy window?', 'deploy window'],
    ['Last time, which database did we pick?', 'database pick'],
    ['上次我们用的数据库是什么？', '数据库'],
    ['我之前说过的部署时间？', '部署时间'],
    ['Do you remember the Redis 端口 we chose earlier?', 'redis chose 端口'],
    ['上次部署遇到了什么问题？', '部署遇到 问题'],
    ['还记得我们的用户反馈吗？', '用户反馈'],
    ['请问上次的猫呢？', '猫'],
  ])('"%s" → session_search for %j', async (text, query) => {
    expect(args(await ask(text))).toEqual([['session_search', { query }]])
  })

  /** The offline model's turn after one tool call of its own, answered with `result` (its data and text). */
  const answer = (name: string, callArgs: object, result: ToolResult) =>
    model.chat({
      system: 'sys',
      tools,
      messages: [
        { role: 'user', content: 'What did I say about the deploy window?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name, arguments: JSON.stringify(callArgs) } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: toolResultText(result) },
      ],
      toolResults: new Map([['c1', result]]),
    })
  const searched = (data: SessionSearchResult): ToolResult & { ok: true } => ({
    ok: true,
    content: renderSessionSearch(data),
    data,
  })
  const quoted = (id: number, role: string, text: string, hit = false) => ({ id, role, text, hit })

  it('answers from the session_search result data, quoting the statement rather than the question', async () => {
    const data: SessionSearchResult = {
      kind: 'hits',
      query: 'deploy window',
      hits: [
        {
          kind: 'message',
          sessionId: 'abc',
          source: 'cli',
          title: null,
          timestamp: Date.UTC(2026, 10, 30, 10),
          messageId: 2,
          messages: [
            quoted(1, 'user', 'When is the deploy window?'),
            quoted(2, 'user', 'The deploy window is Tuesday 14:00 to 16:00 UTC.', true),
            quoted(3, 'assistant', 'Noted.'),
          ],
        },
      ],
    }
    const result = await answer('session_search', { query: 'deploy window' }, searched(data))
    expect(result.message.content).toBe(
      'From a past conversation: The deploy window is Tuesday 14:00 to 16:00 UTC.',
    )
    // The data is what it reads: a text that says otherwise does not change the answer.
    const mislabelled = await answer(
      'session_search',
      { query: 'deploy window' },
      { ...searched(data), content: 'No past session matches "deploy window".' },
    )
    expect(mislabelled.message.content).toBe(result.message.content)
  })

  it('says when the search found nothing, and when a save was refused', async () => {
    const none = await answer(
      'session_search',
      { query: 'kafka' },
      searched({ kind: 'hits', query: 'kafka', hits: [] }),
    )
    expect(none.message.content).toBe('I found nothing about "kafka" in past conversations.')
    const refused = await answer(
      'memory',
      { target: 'memory', action: 'add', content: 'x' },
      { ok: false, error: { code: 'refused', message: 'memory: MEMORY.md is over its cap.' } },
    )
    expect(refused.message.content).toBe('I could not save that: memory: MEMORY.md is over its cap.')
    // A text that merely looks like an error is a saved result when the data says so.
    const saved = await answer(
      'memory',
      { target: 'memory', action: 'add', content: 'x' },
      { ok: true, content: '{"error":"not really"}', data: {} },
    )
    expect(saved.message.content).toBe('Saved to memory: x. ({"error":"not really"})')
  })

  it('without tools it never calls one, and says what it can do', async () => {
    const result = await ask('Remember that we ship on Fridays.', [])
    expect(result.message.tool_calls).toBeUndefined()
    expect(result.message.content).toContain('offline model')
  })

  it('streams its answer and reports usage counted with the BPE counter', async () => {
    const pieces: string[] = []
    const messages: ChatMessage[] = [{ role: 'user', content: 'Our staging host is stage-2.internal.' }]
    const result = await model.chat({ system: 'the system prompt', messages, onText: (d) => pieces.push(d) })
    expect(pieces.length).toBeGreaterThan(3)
    expect(pieces.join('')).toBe(result.message.content)
    expect(result.usage).toEqual({
      inputTokens: countMessages(bpeTokenCounter, [
        { role: 'system', content: 'the system prompt' },
        ...messages,
      ]),
      outputTokens: bpeTokenCounter.countMessage(result.message),
    })
  })

  it('honours an aborted signal', async () => {
    await expect(
      model.chat({ system: 's', messages: [{ role: 'user', content: 'x' }], signal: AbortSignal.abort() }),
    ).rejects.toThrow()
  })
})

const conversation: ChatMessage[] = [
  { role: 'user', content: 'Set up CI for the billing service; it lives in services/billing/main.go.' },
  {
    role: 'assistant',
    content: 'Creating the workflow.',
    tool_calls: [
      {
        id: 't1',
        type: 'function',
        function: { name: 'write_file', arguments: '{"path":".github/workflows/ci.yml"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 't1', content: 'written' },
  { role: 'user', content: 'I prefer GitHub Actions over Jenkins.' },
  { role: 'user', content: 'The staging database runs on port 5433.' },
  { role: 'assistant', content: 'CI is configured and green.' },
  { role: 'user', content: 'Should we cache node_modules?' },
]

describe('offline summaries', () => {
  it('answer the compressor with every section in order, filled from the transcript', async () => {
    const request = buildSummaryRequest(conversation, null, 800)
    const result = await model.chat({
      system: request.system,
      messages: [{ role: 'user', content: request.prompt }],
      maxTokens: request.maxTokens,
    })
    const text = result.message.content as string
    const headings = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1])
    expect(headings).toEqual([...SUMMARY_SECTIONS])
    expect(text).toContain('- Set up CI for the billing service')
    expect(text).toContain('- I prefer GitHub Actions over Jenkins.')
    expect(text).toContain('- called write_file {"path":".github/workflows/ci.yml"}')
    expect(text).toContain('- CI is configured and green.')
    expect(text).toContain('- Should we cache node_modules?')
    expect(text).toContain('- services/billing/main.go')
    expect(text).toContain('- The staging database runs on port 5433.')
    expect(text).toMatch(/## Decisions\nNone/)
  })

  it('update a previous summary, keeping its items', () => {
    const first = offlineSummary(buildSummaryRequest(conversation, null, 800))
    const second = offlineSummary(
      buildSummaryRequest(
        [{ role: 'user', content: 'The cache key includes the lockfile hash.' }],
        first,
        800,
      ),
    )
    expect(second).toContain('- The staging database runs on port 5433.')
    expect(second).toContain('- The cache key includes the lockfile hash.')
  })

  it('are deterministic and within maxTokens for any conversation (property)', () => {
    const message = fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      content: fc.string({ maxLength: 300 }),
    })
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 20, max: 400 }),
        (messages, maxTokens) => {
          const request = buildSummaryRequest(messages, null, maxTokens)
          const summary = offlineSummary(request)
          expect(summary).toBe(offlineSummary(request))
          expect(bpeTokenCounter.countText(summary)).toBeLessThanOrEqual(maxTokens)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('stay linear on huge input: 8× the input takes far less than the 64× of quadratic work', () => {
    const work = (n: number) => {
      const huge = `${'a.b/'.repeat(n)} ${'word '.repeat(n)}`
      offlineSummary({ prompt: `<conversation>\n[user]\n${huge}\n</conversation>`, maxTokens: 500 })
      termsOf(huge)
      termsOf(`a${'.'.repeat(4 * n)}b`)
      offlineSummary({
        prompt: `<previous-summary>\n## ${' '.repeat(4 * n)}x\n</previous-summary>`,
        maxTokens: 50,
      })
    }
    expect(workGrowth(work, 500)).toBeLessThan(12)
    // Backtracking inside one regex match is not counted: 50,000 of each finishes (the timeout is the guard).
    work(50_000)
  })
})
