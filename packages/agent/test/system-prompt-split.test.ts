import fc from 'fast-check'
import { expect, it } from 'vitest'
import { buildSystemPrompt } from '../src/agent/system-prompt.ts'
import { splitSystemPrompt } from '../src/index.ts'

const tools = [
  { name: 'memory', description: 'Save facts.', parameters: { type: 'object' as const, properties: {} } },
]

it('finds exactly the frozen memory snapshot in any prompt buildSystemPrompt makes', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 60 }), (a, b) => {
      // Snapshots may hold blank lines, headings and even a line like the date line.
      const snapshotText = `══ MEMORY [1% — 1/2,200 chars] ══\n${a}\n\nToday's date is ${b}\n§\n${b}`
      const prompt = buildSystemPrompt({ snapshotText, tools, now: new Date(2026, 11, 1) })
      const { memory, instructions } = splitSystemPrompt(prompt)
      expect(memory).toBe(snapshotText)
      expect(instructions).not.toContain('══ MEMORY')
      expect(instructions).toContain("Today's date is 2026-12-01.")
    }),
  )
  expect(splitSystemPrompt('a prompt of my own')).toEqual({ memory: '', instructions: 'a prompt of my own' })
})
