import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const script = fileURLToPath(new URL('./processes/native-modules.ts', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))
const run = (...args: string[]) =>
  JSON.parse(execFileSync(tsx, [script, ...args], { encoding: 'utf8' })) as {
    afterImport: string[]
    afterOpen: string[]
  }

it('importing @engram/core loads no native driver', () => {
  expect(run().afterImport).toEqual([])
})

it('opening a store loads only the driver it uses', () => {
  const better = run('better-sqlite3').afterOpen
  expect(better.some((lib) => /better_sqlite3/.test(lib))).toBe(true)
  expect(better.some((lib) => /libsql/i.test(lib))).toBe(false)
  const libsql = run('libsql').afterOpen
  expect(libsql.some((lib) => /libsql/i.test(lib))).toBe(true)
  expect(libsql.some((lib) => /better_sqlite3/.test(lib))).toBe(false)
})
