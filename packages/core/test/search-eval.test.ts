import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { driversUnderTest } from './helpers.ts'

const harness = fileURLToPath(new URL('../eval/search-eval.ts', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))

interface Row {
  group: string
  recall10: number
}

// The retrieval-quality harness, run as `pnpm eval:search` runs it: every CJK query whose text occurs verbatim
// must be found (its gate), and overall recall must not fall below what the README reports.
for (const driver of driversUnderTest()) {
  it(`meets the search-quality gate on ${driver}`, () => {
    const out = execFileSync(tsx, [harness, '--json', `--driver=${driver}`], { encoding: 'utf8' })
    const report = JSON.parse(out) as { gate: { passed: boolean; failures: unknown[] }; table: Row[] }
    expect(report.gate).toEqual({ passed: true, failures: [] })
    const overall = report.table.find((row) => row.group === 'overall')
    expect(overall?.recall10).toBeGreaterThanOrEqual(0.99)
  })
}
