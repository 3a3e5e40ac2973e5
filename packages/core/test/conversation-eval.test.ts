import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { buildConversationDataset } from '../eval/conversations/build-conversations.ts'
import { driversUnderTest } from './helpers.ts'

const evalDir = fileURLToPath(new URL('../eval/', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))

interface Row {
  group: string
  questions: number
  recall5: number
  recall10: number
}

it('builds the same conversation set every time (it is generated, not stored)', () => {
  const first = buildConversationDataset()
  expect(first.questions.length).toBe(336)
  expect(JSON.stringify(buildConversationDataset())).toBe(JSON.stringify(first))
})

// The figures the notes report, with a margin: today's keyword ranking scored 64 / 60 % recall@5 here.
for (const driver of driversUnderTest()) {
  it(`answers natural-language questions about past sessions on ${driver}`, () => {
    const out = execFileSync(tsx, [join(evalDir, 'conversation-eval.ts'), '--json', `--driver=${driver}`], {
      encoding: 'utf8',
    })
    const { table } = JSON.parse(out) as { table: Row[] }
    for (const split of ['tune', 'heldout']) {
      const row = table.find((r) => r.group === split)
      expect(row?.questions).toBe(168)
      expect(row?.recall5).toBeGreaterThanOrEqual(0.75)
      expect(row?.recall10).toBeGreaterThanOrEqual(0.75)
    }
    const reply = table.find((r) => r.group === '  heldout reply')
    expect(reply?.recall5).toBeGreaterThanOrEqual(0.9)
  })
}
