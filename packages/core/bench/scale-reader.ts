/**
 * The reader of the contention benchmark.
 *
 *   node --import tsx scale-reader.ts <db path> <queries.json> <ms> <go file>
 *
 * Opens the store, prints READY, waits for the go file, then runs the queries round-robin through
 * store.search for <ms> milliseconds. Prints one JSON line: per-query latencies (ms) and errors.
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { openStore } from '../src/index.ts'
import { waitForGoFile } from '../test/processes/go-file.ts'

export interface ReaderReport {
  latenciesMs: number[]
  errors: number
  errorMessages: string[]
}

const [path, queriesFile, msArg, goFile] = process.argv.slice(2)
if (!path || !queriesFile || !msArg || !goFile) {
  console.error('usage: scale-reader.ts <db path> <queries.json> <ms> <go file>')
  process.exit(2)
}
const queries = JSON.parse(readFileSync(queriesFile, 'utf8')) as string[]
const store = await openStore({ url: path })
for (const q of queries) await store.search(q, { limit: 20 }) // warm the page cache
console.log('READY')
await waitForGoFile(goFile)
const report: ReaderReport = { latenciesMs: [], errors: 0, errorMessages: [] }
const stopAt = Date.now() + Number(msArg)
for (let i = 0; Date.now() < stopAt; i++) {
  const start = performance.now()
  try {
    await store.search(queries[i % queries.length] as string, { limit: 20 })
    report.latenciesMs.push(Math.round((performance.now() - start) * 100) / 100)
  } catch (error) {
    report.errors++
    if (report.errorMessages.length < 5) report.errorMessages.push(String((error as Error).message))
  }
}
await store.close()
console.log(JSON.stringify(report))
