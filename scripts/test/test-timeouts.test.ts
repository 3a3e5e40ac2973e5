import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import config from '../../vitest.config.ts'
import { ROOT } from '../workspace-packages.ts'

/**
 * Every TypeScript file under the packages' and the CLI's test folders, and the contract suites packages ship
 * (`src/testing`: they set their limits explicitly, for a user's config whose default is 5 s).
 */
function testFiles(): string[] {
  return ['packages', 'apps'].flatMap((top) =>
    readdirSync(join(ROOT, top)).flatMap((name) =>
      ['test', 'src/testing'].flatMap((sub) => {
        const folder = join(top, name, sub)
        try {
          return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
            .filter((file) => file.endsWith('.ts'))
            .map((file) => join(folder, file))
        } catch {
          return []
        }
      }),
    ),
  )
}

const number = (text: string) => Number(text.replaceAll('_', ''))

// A loaded CI machine runs the slow tests many times slower than a quiet one: their time limits live in one
// place (vitest.config.ts, ten times the quiet duration of the slowest), and no file sets a shorter one for
// a test, a hook or a wait on a child process.
it('no test file sets a timeout shorter than the config’s', () => {
  const limit = config.test?.testTimeout as number
  expect(limit).toBeGreaterThanOrEqual(600_000)
  expect(config.test?.hookTimeout).toBe(limit)
  const shorter: string[] = []
  for (const file of testFiles()) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
    for (const [index, line] of lines.entries()) {
      const found = [
        /^\s*\}, (\d[\d_]*)\)$/.exec(line)?.[1], // it(…, () => {…}, N) and hooks
        /\b(?:timeout|testTimeout|hookTimeout|timeoutMs)(?:: | = )(\d[\d_]*)/.exec(line)?.[1],
        /\b(?:exitWithin|waitForLine|runKillingWriters)\(.*, (\d[\d_]*)\)/.exec(line)?.[1],
        /^\s+(\d[\d_]*),?$/.exec(line)?.[1], // a limit on a line of its own: it(…, () => {…},\n N,\n) or setTimeout
        /\bsetTimeout\(.*, (\d[\d_]*)\)/.exec(line)?.[1],
      ].filter((value): value is string => value !== undefined)
      // Below 10 s a number closing a call is a size or a count, not a time limit (workGrowth's sizes).
      for (const value of found)
        if (number(value) >= 10_000 && number(value) < limit)
          shorter.push(`${file}:${index + 1}: ${line.trim()}`)
    }
  }
  expect(shorter).toEqual([])
})
