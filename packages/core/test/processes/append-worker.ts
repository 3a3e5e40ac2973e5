/**
 * One of several writers of the concurrency test.
 *
 *   tsx append-worker.ts <db path> <messages> <child index> <shared session id> <go file> [driver]
 *
 * Opens the store, prints `READY`, waits until the go file exists (so every child starts writing at the
 * same moment), then creates its own session and appends `child-<k>-msg-<i>` for i = 0..messages-1, one
 * appendMessage (one transaction) at a time, to its own session and to the shared one. The last stdout
 * line is a JSON report; an append that throws is counted and the loop goes on.
 */
import { type DriverName, openStore } from '@engram/core'
import { waitForGoFile } from './go-file.ts'

export interface WorkerReport {
  child: number
  sessionId: string
  ownIds: number[]
  sharedIds: number[]
  errors: number
  errorMessages: string[]
}

const [path, countArg, indexArg, sharedSessionId, goFile, driverArg] = process.argv.slice(2)
if (!path || !countArg || !indexArg || !sharedSessionId || !goFile) {
  console.error(
    'usage: append-worker.ts <db path> <messages> <child index> <shared session id> <go file> [driver]',
  )
  process.exit(2)
}
const count = Number(countArg)
const child = Number(indexArg)

const store = await openStore({
  url: path,
  driver: (driverArg as DriverName | undefined) ?? 'better-sqlite3',
})
console.log('READY')

await waitForGoFile(goFile)

const report: WorkerReport = {
  child,
  sessionId: '',
  ownIds: [],
  sharedIds: [],
  errors: 0,
  errorMessages: [],
}
const failed = (error: unknown) => {
  report.errors += 1
  if (report.errorMessages.length < 10) {
    const e = error as { code?: string; message?: string }
    report.errorMessages.push(`${e.code ?? ''} ${e.message ?? String(error)}`)
  }
}

try {
  report.sessionId = (await store.createSession({ source: `worker-${child}`, title: `child ${child}` })).id
} catch (error) {
  failed(error)
}

for (let i = 0; i < count; i++) {
  const content = `child-${child}-msg-${i}`
  if (report.sessionId) {
    try {
      report.ownIds.push((await store.appendMessage(report.sessionId, { role: 'user', content })).id)
    } catch (error) {
      failed(error)
    }
  }
  try {
    report.sharedIds.push((await store.appendMessage(sharedSessionId, { role: 'assistant', content })).id)
  } catch (error) {
    failed(error)
  }
}

try {
  await store.close()
} catch (error) {
  failed(error)
}
console.log(JSON.stringify(report))
