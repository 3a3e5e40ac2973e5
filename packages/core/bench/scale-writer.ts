/**
 * One writer process of the contention benchmark.
 *
 *   node --import tsx scale-writer.ts <db path> <writer index> <variant: default|app-retry|app-retry-10> <ms> <go file>
 *
 * Opens the store, creates its own session, prints READY, waits for the go file, then appends realistic
 * messages (data.ts), one appendMessage (one transaction) at a time, for <ms> milliseconds. Prints one
 * JSON line: appends, per-append latencies (ms), errors, CPU time and the wall-clock span.
 */
import { performance } from 'node:perf_hooks'
import { openStore } from '../src/index.ts'
import { waitForGoFile } from '../test/processes/go-file.ts'
import { Generator } from './data.ts'
import { type RetryVariant, VARIANT_OPTIONS } from './scale-contention.ts'

export interface WriterReport {
  appends: number
  latenciesMs: number[]
  errors: number
  errorMessages: string[]
  cpuMs: number
  startedAt: number
  endedAt: number
}

const [path, indexArg, variantArg, msArg, goFile] = process.argv.slice(2)
if (!path || !indexArg || !variantArg || !msArg || !goFile || !(variantArg in VARIANT_OPTIONS)) {
  console.error(
    'usage: scale-writer.ts <db path> <writer index> <default|app-retry|app-retry-10> <ms> <go file>',
  )
  process.exit(2)
}
const messages = new Generator(1000 + Number(indexArg)).session('w', 2000).messages
const store = await openStore({ url: path, ...VARIANT_OPTIONS[variantArg as RetryVariant] })
const { id } = await store.createSession({ source: `writer-${indexArg}` })
console.log('READY')
await waitForGoFile(goFile)

const report: WriterReport = {
  appends: 0,
  latenciesMs: [],
  errors: 0,
  errorMessages: [],
  cpuMs: 0,
  startedAt: Date.now(),
  endedAt: 0,
}
const cpu = process.cpuUsage()
const stopAt = report.startedAt + Number(msArg)
for (let i = 0; Date.now() < stopAt; i++) {
  const start = performance.now()
  try {
    await store.appendMessage(id, messages[i % messages.length] as (typeof messages)[number])
    report.appends++
    report.latenciesMs.push(Math.round((performance.now() - start) * 100) / 100)
  } catch (error) {
    report.errors++
    if (report.errorMessages.length < 5) report.errorMessages.push(String((error as Error).message))
  }
}
report.endedAt = Date.now()
const used = process.cpuUsage(cpu)
report.cpuMs = (used.user + used.system) / 1000
await store.close()
console.log(JSON.stringify(report))
