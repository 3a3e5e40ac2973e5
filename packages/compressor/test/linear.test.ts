import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compress } from '../src/compress.ts'
import { buildFallbackSummary } from '../src/fallback.ts'
import type { CompressibleMessage } from '../src/messages.ts'
import { REDACTED, redactSecrets } from '../src/redact.ts'
import { bpeTokenCounter } from '../src/tokens.ts'
import { call, callsTo, codingConversation, result, scriptedSummarizer, user, withIds } from './helpers.ts'

const KB = 1024

/** The best of three runs, in ms: a floor, less noisy than one run on a shared machine. */
function best(run: () => unknown): number {
  let fastest = Number.POSITIVE_INFINITY
  for (let i = 0; i < 3; i++) {
    const start = performance.now()
    run()
    fastest = Math.min(fastest, performance.now() - start)
  }
  return fastest
}

const fill = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars)

/** Pieces of secrets, keys, URLs, paths and separators: repeated, they make the inputs regexes choke on. */
const FRAGMENTS = [
  'a',
  'Z',
  '7',
  '-',
  '.',
  '_',
  ':',
  '/',
  '@',
  '=',
  '"',
  "'",
  ' ',
  '\n',
  '+',
  'sk-',
  'sk-ant-',
  'ghp_',
  'AKIA',
  'eyJ',
  'xoxb-',
  'AIza',
  'Bearer ',
  'password',
  'token',
  'api_key',
  '://',
  '-----BEGIN RSA PRIVATE KEY-----',
  '-----END RSA PRIVATE KEY-----',
  '.ts',
  'src/',
  '数据',
  'error',
  'é',
]
const adversarialUnit = fc
  .array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(''))

/**
 * Checks that `run` on 1 MB of `unit` costs at most a generous multiple (10) of ten times 100 KB of it, both
 * measured here: a ratio, not a wall-clock limit. 100 KB fits in the CPU caches and 1 MB does not, which alone
 * costs up to 4× here; a quadratic cost would be 10× over the linear extrapolation, 1,000× past 100 KB.
 */
function expectLinear(label: string, unit: string, run: (text: string) => unknown): void {
  const small = fill(unit, 100 * KB)
  const large = fill(unit, 1024 * KB)
  const tSmall = Math.max(
    best(() => run(small)),
    0.5,
  )
  const tLarge = best(() => run(large))
  const message = `${label} ${JSON.stringify(unit)}: 1 MB ${tLarge.toFixed(1)} ms, 100 KB ${tSmall.toFixed(1)} ms`
  expect(tLarge, message).toBeLessThan(tSmall * 10 * 10)
}

const toolOutput = (content: string): CompressibleMessage[] =>
  withIds([user('look at it'), callsTo(call('c1', 'read_file', { path: 'src/a.ts' })), result('c1', content)])

describe('linear time on model and tool output', () => {
  it('redacts the reported inputs about as fast as prose of the same length', () => {
    const prose = (chars: number) => fill('The deploy failed because the config was missing a key. ', chars)
    for (const text of [
      'a-'.repeat(20_000),
      'a.'.repeat(20_000),
      '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(5_000),
    ]) {
      const ms = best(() => redactSecrets(text))
      const baseline = Math.max(
        best(() => redactSecrets(prose(text.length))),
        0.5,
      )
      console.log(
        `[bench] redactSecrets ${JSON.stringify(text.slice(0, 12))}… (${text.length} chars): ${ms.toFixed(1)} ms, prose ${baseline.toFixed(1)} ms`,
      )
      // Quadratic, these took seconds: thousands of times the prose.
      expect(ms).toBeLessThan(baseline * 50)
    }
    expect(redactSecrets(`${'a-'.repeat(20_000)} password=hunter2`)).toMatch(
      new RegExp(`password=\\${REDACTED}$`.replace('\\[', '\\[')),
    )
  })

  it('redactSecrets is linear in its input', () => {
    fc.assert(
      fc.property(adversarialUnit, (unit) => expectLinear('redactSecrets', unit, redactSecrets)),
      { numRuns: 10 },
    )
  })

  it('the fallback summary is linear in the turns it summarises', () => {
    fc.assert(
      fc.property(adversarialUnit, (unit) =>
        expectLinear('fallback', unit, (text) =>
          buildFallbackSummary(toolOutput(`${text}/x.ts`), null, 2_000, bpeTokenCounter),
        ),
      ),
      { numRuns: 10 },
    )
  })

  it('counts tokens of runs without white space about as fast as prose', () => {
    const count = (text: string) => bpeTokenCounter.countText(text)
    const prose = best(() =>
      count(fill('The deploy failed because the config was missing a key. ', 1024 * KB)),
    )
    for (const unit of ['a', '数据库', '-', 'a-', 'Zm9vYmFy', `${'x'.repeat(300)} `]) {
      const ms = best(() => count(fill(unit, 1024 * KB)))
      console.log(
        `[bench] countText 1 MB of ${JSON.stringify(unit.slice(0, 8))}: ${ms.toFixed(1)} ms = ${(ms / prose).toFixed(1)}× 1 MB of prose (${prose.toFixed(1)} ms)`,
      )
      expect(ms, unit).toBeLessThan(prose * 20)
    }
  })

  it('compresses a conversation with an 80 KB output ending in a path about as fast as one of code when the summariser fails', async () => {
    const timed = async (output: string) => {
      const messages = codingConversation(12)
      messages.splice(6, 1, result('c1', output))
      const start = performance.now()
      const { report, summary } = await compress(withIds(messages), {
        window: 16_000,
        summarizer: scriptedSummarizer(new Error('model overloaded')),
        config: { tailProtectTokens: 2_000 },
      })
      return { report, summary, ms: performance.now() - start }
    }
    const normal = await timed(fill('const value = compute(input)\n', 80 * KB))
    for (const unit of ['a', 'a.', 'a-', '数据库']) {
      const { report, summary, ms } = await timed(`${fill(unit, 80 * KB)}/x.ts`)
      console.log(
        `[bench] compress with a failing summariser, 80 KB of ${JSON.stringify(unit)} + /x.ts: ${ms.toFixed(0)} ms (${(ms / normal.ms).toFixed(1)}× an 80 KB code output, ${normal.ms.toFixed(0)} ms)`,
      )
      expect(report.usedFallback).toBe(true)
      expect(summary).toContain('Summary built locally')
      expect(summary?.length).toBeLessThan(20_000)
      expect(ms).toBeLessThan(Math.max(normal.ms, 1) * 20)
    }
  })
})
