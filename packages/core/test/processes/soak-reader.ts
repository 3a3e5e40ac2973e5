/**
 * The reader of the soak test: searches until the stop file appears, then prints a JSON report.
 *
 *   node --import tsx soak-reader.ts <db path> <stop file>
 */
import { existsSync } from 'node:fs'
import { openStore } from '@engram/core'

const [path, stopFile] = process.argv.slice(2)
if (!path || !stopFile) {
  console.error('usage: soak-reader.ts <db path> <stop file>')
  process.exit(2)
}
const QUERIES = ['soak index', '数据库', 'checks', '索引', 'search_code', 'message', '检查 消息']
const store = await openStore({ url: path })
console.log('READY')
const report = { searches: 0, hits: 0, errors: 0, errorMessages: [] as string[] }
while (!existsSync(stopFile)) {
  try {
    report.hits += (
      await store.search(QUERIES[report.searches % QUERIES.length] as string, { limit: 10 })
    ).length
  } catch (error) {
    report.errors++
    if (report.errorMessages.length < 5) report.errorMessages.push((error as Error).message)
  }
  report.searches++
  if (report.searches === 1) console.log('SEARCHED')
}
await store.close()
console.log(JSON.stringify(report))
