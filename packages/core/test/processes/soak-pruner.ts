/**
 * The maintenance process of the soak test: until the stop file appears, it creates a throw-away session
 * (source `prune`) with a few messages, ends it, prunes ended `prune` sessions, and every fifth cycle runs
 * rebuildSearchIndex over the whole store. Prints a JSON report.
 *
 *   node --import tsx soak-pruner.ts <db path> <stop file>
 */
import { existsSync } from 'node:fs'
import { openStore } from '@engram/core'

const [path, stopFile] = process.argv.slice(2)
if (!path || !stopFile) {
  console.error('usage: soak-pruner.ts <db path> <stop file>')
  process.exit(2)
}
const store = await openStore({ url: path })
console.log('READY')
const report = { cycles: 0, pruned: 0, rebuilds: 0, errors: 0, errorMessages: [] as string[] }
while (!existsSync(stopFile)) {
  try {
    const { id } = await store.createSession({ source: 'prune' })
    await store.appendMessages(
      id,
      Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: `old message ${i} 旧消息` })),
    )
    await store.endSession(id, 'done')
    await new Promise((resolve) => setTimeout(resolve, 2))
    report.pruned += await store.pruneSessions({ olderThanDays: 0, source: 'prune' })
    if (report.cycles % 5 === 4) {
      await store.rebuildSearchIndex()
      report.rebuilds++
      if (report.pruned > 0) console.log('REBUILT')
    }
  } catch (error) {
    report.errors++
    if (report.errorMessages.length < 5) report.errorMessages.push((error as Error).message)
  }
  report.cycles++
}
await store.close()
console.log(JSON.stringify(report))
