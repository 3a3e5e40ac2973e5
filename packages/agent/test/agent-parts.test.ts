import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { workGrowth } from '../../core/src/testing/work.ts'
import { IMPORTANCE, importanceOf } from '../src/agent/importance.ts'
import { buildSystemPrompt } from '../src/agent/system-prompt.ts'
import { costOf } from '../src/agent/usage.ts'

describe('episode importance', () => {
  it.each([
    [
      '## Critical context\n- The API runs on port 8080; config lives in config/app.toml.',
      IMPORTANCE.environment,
    ],
    ['## Critical context\n- 数据库部署在新加坡的服务器上', IMPORTANCE.environment],
    ['## Constraints and preferences\n- I prefer short answers and tabs.', IMPORTANCE.preference],
    ['## Constraints and preferences\n- 我喜欢简洁的回答', IMPORTANCE.preference],
    ['## Current state\n- The test failed with a TypeError stack trace in the parser.', IMPORTANCE.debugging],
    ['## Goal\n- Write a haiku about autumn.', IMPORTANCE.neutral],
    // An environment fact outweighs the debugging detail around it.
    ['- Debugging the crash: the server on port 3000 fails.', IMPORTANCE.environment],
  ])('%j → %i', (summary, expected) => {
    expect(importanceOf(summary)).toBe(expected)
  })

  it("averages the baseline with the summariser's own estimate", () => {
    expect(importanceOf('- I prefer tabs.\nImportance: 9/10')).toBe(8)
    expect(importanceOf('- Write a haiku.\nimportance = 1')).toBe(3)
  })

  it('is linear in the summary (no backtracking on long runs of spaces)', () => {
    const work = (n: number) => importanceOf(`importance${' '.repeat(n)}x `.repeat(3))
    expect(workGrowth(work, 2_000)).toBeLessThan(12)
    // Backtracking inside one regex match is not counted: a megabyte finishes (the timeout is the guard).
    expect(importanceOf(`importance${' '.repeat(1_000_000)}x `)).toBeGreaterThanOrEqual(0)
  })

  it('is always an integer from 0 to 10 (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.option(fc.integer({ min: 0, max: 99 })),
        (text, estimate) => {
          const value = importanceOf(estimate === null ? text : `${text}\nImportance: ${estimate}`)
          expect(Number.isInteger(value) && value >= 0 && value <= 10).toBe(true)
        },
      ),
    )
  })
})

describe('system prompt', () => {
  const tools = [
    { name: 'memory', description: 'Save facts.', parameters: { type: 'object' as const, properties: {} } },
    {
      name: 'deploy',
      description: 'Deploys the app. Takes a while.',
      parameters: { type: 'object' as const, properties: {} },
    },
  ]

  it('has identity, guidance for the offered tools only, the snapshot and the local date', () => {
    const prompt = buildSystemPrompt({
      snapshotText: '══ MEMORY [1% — 20/2,200 chars] ══\nfact one',
      tools,
      now: new Date(2026, 0, 9, 23, 59),
    })
    expect(prompt).toMatch(/^You are Engram/)
    expect(prompt).toContain('- memory: ')
    expect(prompt).toContain('- deploy: Deploys the app.')
    expect(prompt).not.toContain('session_search:')
    expect(prompt).toContain('══ MEMORY [1% — 20/2,200 chars] ══\nfact one')
    expect(prompt.endsWith("Today's date is 2026-01-09.")).toBe(true)
  })

  it('is the same bytes all day long', () => {
    const at = (h: number, m: number) =>
      buildSystemPrompt({ snapshotText: 's', tools, now: new Date(2026, 5, 1, h, m) })
    expect(at(0, 0)).toBe(at(23, 59))
    expect(at(0, 0)).not.toBe(buildSystemPrompt({ snapshotText: 's', tools, now: new Date(2026, 5, 2) }))
  })
})

describe('costOf', () => {
  it('prices uncached input, cache reads and output per million tokens; none without a price', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 500_000, cacheReadTokens: 400_000 }
    expect(costOf(usage, { input: 3, output: 15, cacheRead: 0.3 })).toBeCloseTo(
      0.6 * 3 + 0.4 * 0.3 + 0.5 * 15,
      10,
    )
    expect(costOf(usage, { input: 3, output: 15 })).toBeCloseTo(3 + 7.5, 10)
    expect(costOf(usage, undefined)).toBeUndefined()
  })
})
