import { type ChatMessage, EngramError } from '@engram/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { windowBudget } from '../src/budget.ts'
import { DEFAULT_COMPRESSOR_CONFIG } from '../src/config.ts'
import { fitToWindow } from '../src/fit.ts'
import { ContextCompressor } from '../src/guard.ts'
import type { CompressibleMessage } from '../src/messages.ts'
import type { CompressionReport } from '../src/report.ts'
import { isSummaryMessage, SUMMARY_MARKER } from '../src/summary.ts'
import { bpeTokenCounter, countMessages } from '../src/tokens.ts'
import { assistant, call, callsTo, result, scriptedSummarizer, system, user, withIds } from './helpers.ts'

const counter = bpeTokenCounter
const TEXT = {
  en: 'the deploy of api-7 failed at step 3 because the TLS certificate expired; ',
  cjk: '数据库连接在部署后失败，证书过期，已用 certbot 续期。',
}
type Lang = keyof typeof TEXT
const fill = (lang: Lang, chars: number) =>
  TEXT[lang].repeat(Math.ceil(chars / TEXT[lang].length)).slice(0, chars)

const lang = fc.constantFrom<Lang>('en', 'cjk')
const text = (max: number) => fc.tuple(lang, fc.integer({ min: 1, max })).map(([l, n]) => fill(l, n))
const userText = fc.oneof(
  { weight: 3, arbitrary: text(300) },
  { weight: 2, arbitrary: text(6_000) },
  { weight: 1, arbitrary: text(50_000) },
)
const step = fc.array(fc.oneof(text(200), text(20_000)), { minLength: 1, maxLength: 3 })
const turn = fc.record({
  ask: userText,
  steps: fc.array(step, { maxLength: 4 }),
  answer: fc.option(text(2_000), { nil: undefined }),
})

/** A conversation of whole turns, maybe after an earlier summary; the last turn may still be running. */
const conversation = fc
  .record({ turns: fc.array(turn, { minLength: 1, maxLength: 12 }), summary: fc.boolean() })
  .map(({ turns, summary }) => {
    const messages: ChatMessage[] = [system('You are a coding agent. '.repeat(20))]
    if (summary) messages.push(user(`${SUMMARY_MARKER}\n\n## Goal\nShip the release.`), assistant('Noted.'))
    let id = 0
    for (const { ask, steps, answer } of turns) {
      messages.push(user(ask))
      for (const outputs of steps) {
        const calls = outputs.map(() => call(`c${++id}`, 'read_file', { path: `src/f${id}.ts` }))
        messages.push(callsTo(...calls))
        for (const [i, output] of outputs.entries()) messages.push(result(calls[i]?.id ?? '', output))
      }
      if (answer) messages.push(assistant(answer))
    }
    return withIds(messages)
  })
const windowSize = fc.oneof(fc.integer({ min: 2_000, max: 10_000 }), fc.integer({ min: 2_000, max: 200_000 }))
const fixedTokens = fc.integer({ min: 0, max: 400 })

/** Each tool call answered right after it, no stray results. */
function pairingProblems(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = []
  for (let i = 0; i < messages.length; i++) {
    const ids = new Set((messages[i]?.tool_calls ?? []).map((c) => c.id))
    if (messages[i]?.role === 'tool') problems.push(`stray result at ${i}`)
    let j = i + 1
    while (messages[j]?.role === 'tool') {
      if (!ids.delete(messages[j]?.tool_call_id ?? '')) problems.push(`result at ${j} answers no call`)
      j++
    }
    if (ids.size > 0) problems.push(`calls at ${i} without results`)
    i = j - 1
  }
  return problems
}

const lastUser = (messages: readonly ChatMessage[]) =>
  messages.findLast((m) => m.role === 'user' && !isSummaryMessage(m)) as ChatMessage

function expectFits(
  input: readonly CompressibleMessage[],
  out: readonly CompressibleMessage[],
  report: CompressionReport,
  window: number,
  fixed: number,
): void {
  const { promptTokens } = windowBudget(window, DEFAULT_COMPRESSOR_CONFIG)
  expect(countMessages(counter, out) + fixed).toBeLessThanOrEqual(promptTokens)
  expect(pairingProblems(out)).toEqual([])
  expect(out[0]).toBe(input[0])
  expect(out).toContain(lastUser(input))
  expect(out.filter(isSummaryMessage).length).toBeLessThanOrEqual(1)
  // What left the context is accounted for: its ids are in the reported range, and they are still in the input.
  const kept = new Set(out.map((m) => m.id))
  const gone = input.filter((m) => !kept.has(m.id)).map((m) => m.id as number)
  if (gone.length > 0 && report.summarizedIdRange) {
    expect(Math.min(...gone)).toBeGreaterThanOrEqual(report.summarizedIdRange.first)
    expect(Math.max(...gone)).toBeLessThanOrEqual(report.summarizedIdRange.last)
  }
  if (gone.length > 0) expect(report.windowCut?.messagesCut).toBe(gone.length)
}

describe('fitToWindow: the window is a hard limit', () => {
  it('fits any conversation into any window, or refuses exactly when the latest user message alone cannot fit', () => {
    const seen = { unchanged: 0, cut: 0, refused: 0 }
    fc.assert(
      fc.property(conversation, windowSize, fixedTokens, (messages, window, fixed) => {
        const { promptTokens } = windowBudget(window, DEFAULT_COMPRESSOR_CONFIG)
        const alone = countMessages(counter, [messages[0] as ChatMessage, lastUser(messages)]) + fixed
        let fitted: ReturnType<typeof fitToWindow>
        try {
          fitted = fitToWindow(messages, { window, fixedTokens: fixed })
        } catch (error) {
          expect(error).toBeInstanceOf(EngramError)
          expect((error as EngramError).code).toBe('CONTEXT_TOO_LARGE')
          expect((error as Error).message).toMatch(
            /^Nothing was sent to the model: .* Send a shorter message/,
          )
          expect(alone).toBeGreaterThan(promptTokens)
          seen.refused++
          return
        }
        expect(alone).toBeLessThanOrEqual(promptTokens)
        const { messages: out, report } = fitted
        if (report.status === 'unchanged') {
          expect(out).toEqual(messages)
          seen.unchanged++
        } else seen.cut++
        expectFits(messages, out, report, window, fixed)
      }),
      { numRuns: 80 },
    )
    expect(seen.unchanged).toBeGreaterThan(0)
    expect(seen.cut).toBeGreaterThan(0)
    expect(seen.refused).toBeGreaterThan(0)
  })

  it('names the cut turns in a local summary that says where they are', () => {
    const messages = withIds([
      system(),
      user('Please fix the login bug in src/auth/login.ts.'),
      callsTo(call('c1', 'read_file', { path: 'src/auth/login.ts' })),
      result('c1', fill('en', 20_000)),
      assistant('Fixed the login bug.'),
      ...Array.from({ length: 30 }, (_, i) => [
        user(`step ${i}: ${fill('cjk', 300)}`),
        assistant(`done ${i}`),
      ]).flat(),
      user('And now the signup page?'),
    ])
    const { messages: out, summary, report } = fitToWindow(messages, { window: 4_000 })
    expect(report.status).toBe('compressed')
    expect(report.windowCut?.messagesCut).toBeGreaterThan(0)
    expect(summary).toMatch(/earlier message\(s\) were cut to fit the 4000-token context window/)
    expect(summary).toContain('session_search')
    expect(summary).toContain('read_file(src/auth/login.ts)')
    expect(out[1] && isSummaryMessage(out[1])).toBe(true)
    expect(report.summarizedIdRange?.first).toBe(2)
  })

  it('clips the outputs of the running step when nothing older is left to cut', () => {
    const messages = withIds([
      system(),
      user('Read the log.'),
      callsTo(call('c1', 'read_log', {}), call('c2', 'read_log', {})),
      result('c1', fill('en', 40_000)),
      result('c2', fill('cjk', 40_000)),
    ])
    const { messages: out, report } = fitToWindow(messages, { window: 3_000 })
    expect(report.windowCut?.toolOutputsClipped).toBe(2)
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool'])
    expect(out[3]?.content).toMatch(/^the deploy of api-7[\s\S]*clipped to fit the context window/)
    expectFits(messages, out, report, 3_000, 0)
  })

  it('is linear: the tokens it counts grow with the conversation, not with its square', () => {
    const counted = (turns: number) => {
      let chars = 0
      const tally = {
        countText: (t: string) => {
          chars += t.length
          return counter.countText(t)
        },
        countMessage: (m: ChatMessage) => {
          chars += JSON.stringify(m).length
          return counter.countMessage(m)
        },
      }
      const messages = withIds([
        system(),
        ...Array.from({ length: turns }, (_, i) => [
          user(`ask ${i}`),
          callsTo(call(`c${i}`, 'read_file', { path: `f${i}` })),
          result(`c${i}`, fill('en', 3_000)),
          assistant(`answer ${i}`),
        ]).flat(),
      ])
      fitToWindow(messages, { window: 8_000, tokenCounter: tally })
      return chars / JSON.stringify(messages).length
    }
    // Characters looked at per character of input: about constant when the size grows tenfold.
    expect(counted(400)).toBeLessThan(counted(40) * 2)
  })
})

describe('ContextCompressor keeps the window when summarising is blocked or fails', () => {
  it('cuts to the window without calling the summariser once the guard blocks it', async () => {
    const summarizer = scriptedSummarizer('## Goal\nStill the same.')
    const compressor = new ContextCompressor({ window: 4_000, summarizer, fixedTokens: 300 })
    const unchanged = { status: 'unchanged', tokensAfter: 0 } as CompressionReport
    compressor.guard.record(unchanged, 0)
    compressor.guard.record(unchanged, 0)
    expect(compressor.guard.blocked).toBe(true)
    const messages = withIds([
      system(),
      ...Array.from({ length: 20 }, (_, i) => [user(`turn ${i} ${fill('en', 800)}`), assistant('ok')]).flat(),
    ])
    const fitted = await compressor.compress(messages)
    expect(summarizer.requests).toHaveLength(0)
    expect(fitted?.report.status).toBe('compressed')
    expectFits(messages, fitted?.messages ?? [], fitted?.report as CompressionReport, 4_000, 300)
  })

  it('cuts to the window when the summariser fails, and says why it did not summarise', async () => {
    // The latest step alone is over this window: only clipping its output can make it fit.
    const summarizer = scriptedSummarizer(new Error('model overloaded'))
    const compressor = new ContextCompressor({
      window: 3_000,
      summarizer,
      config: { headProtectMessages: 0 },
    })
    const messages = withIds([
      system(),
      user('start'),
      assistant('ok'),
      user('read both logs'),
      callsTo(call('c1', 'read_log', {})),
      result('c1', fill('en', 30_000)),
    ])
    const fitted = await compressor.compress(messages)
    expect(summarizer.requests).toHaveLength(1)
    expect(fitted?.report.status).toBe('compressed')
    expect(fitted?.report.reason).toBe('the summariser failed: Error: model overloaded')
    expect(fitted?.report.windowCut?.toolOutputsClipped).toBe(1)
    expect(fitted?.report.tokensBefore).toBe(countMessages(counter, messages))
    expectFits(messages, fitted?.messages ?? [], fitted?.report as CompressionReport, 3_000, 0)
  })
})
