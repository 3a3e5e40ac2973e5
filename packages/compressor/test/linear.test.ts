import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countWork, countWorkAsync, workGrowth } from '../../core/src/testing/work.ts'
import { compress } from '../src/compress.ts'
import { buildFallbackSummary } from '../src/fallback.ts'
import type { CompressibleMessage } from '../src/messages.ts'
import { REDACTED, redactSecrets } from '../src/redact.ts'
import { bpeTokenCounter } from '../src/tokens.ts'
import { call, callsTo, codingConversation, result, scriptedSummarizer, user, withIds } from './helpers.ts'

const KB = 1024

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
 * Checks that `run` on 100 KB of `unit` costs about 10× the work of 10 KB of it, counted, not timed (quadratic
 * work would be 100×), then runs it on 1 MB: backtracking inside one regex match is not counted, and on 1 MB
 * it would not finish (the test's timeout is the guard).
 */
function expectLinear(label: string, unit: string, run: (text: string) => unknown): void {
  const growth = workGrowth((chars) => run(fill(unit, chars)), 10 * KB, 10)
  expect(
    growth,
    `${label} ${JSON.stringify(unit)}: 10× the text, ${growth.toFixed(1)}× the work`,
  ).toBeLessThan(15)
  run(fill(unit, 1024 * KB))
}

const toolOutput = (content: string): CompressibleMessage[] =>
  withIds([user('look at it'), callsTo(call('c1', 'read_file', { path: 'src/a.ts' })), result('c1', content)])

describe('linear time on model and tool output', () => {
  it('redacts the reported inputs with about the work of prose of the same length', () => {
    const prose = (chars: number) => fill('The deploy failed because the config was missing a key. ', chars)
    for (const text of [
      'a-'.repeat(20_000),
      'a.'.repeat(20_000),
      '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(5_000),
    ]) {
      const work = countWork(() => redactSecrets(text))
      const baseline = countWork(() => redactSecrets(prose(text.length)))
      console.log(
        `redactSecrets ${JSON.stringify(text.slice(0, 12))}… (${text.length} chars): ${(work / baseline).toFixed(1)}× the work of prose`,
      )
      // Quadratic, these took seconds: thousands of times the prose.
      expect(work).toBeLessThan(baseline * 5)
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

  it('counts tokens of runs without white space with about the work of prose', () => {
    const count = (text: string) => bpeTokenCounter.countText(text)
    const prose = countWork(() =>
      count(fill('The deploy failed because the config was missing a key. ', 100 * KB)),
    )
    for (const unit of ['a', '数据库', '-', 'a-', 'Zm9vYmFy', `${'x'.repeat(300)} `]) {
      const work = countWork(() => count(fill(unit, 100 * KB)))
      console.log(
        `countText 100 KB of ${JSON.stringify(unit.slice(0, 8))}: ${(work / prose).toFixed(1)}× the work of prose`,
      )
      expect(work, unit).toBeLessThan(prose * 5)
      count(fill(unit, 1024 * KB))
    }
  })

  it('compresses a conversation with an 80 KB output ending in a path with about the work of one of code when the summariser fails', async () => {
    const counted = async (output: string) => {
      const messages = withIds(codingConversation(12).toSpliced(6, 1, result('c1', output)))
      let compressed: Awaited<ReturnType<typeof compress>> | undefined
      const work = await countWorkAsync(async () => {
        compressed = await compress(messages, {
          window: 16_000,
          summarizer: scriptedSummarizer(new Error('model overloaded')),
          config: { tailProtectTokens: 2_000 },
        })
      })
      if (!compressed) throw new Error('compress did not return')
      return { ...compressed, work }
    }
    const normal = await counted(fill('const value = compute(input)\n', 80 * KB))
    for (const unit of ['a', 'a.', 'a-', '数据库']) {
      const { report, summary, work } = await counted(`${fill(unit, 80 * KB)}/x.ts`)
      console.log(
        `compress with a failing summariser, 80 KB of ${JSON.stringify(unit)} + /x.ts: ${(work / normal.work).toFixed(1)}× the work of an 80 KB code output`,
      )
      expect(report.usedFallback).toBe(true)
      expect(summary).toContain('Summary built locally')
      expect(summary?.length).toBeLessThan(20_000)
      expect(work).toBeLessThan(normal.work * 5)
    }
  })
})
