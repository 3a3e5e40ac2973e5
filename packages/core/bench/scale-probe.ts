/**
 * A fresh process for the figures that a long-running benchmark process would distort:
 *
 *   node --import tsx scale-probe.ts <db path> <queries.json> <raw-first: 0|1>
 *
 * Times the first openStore() of the process on an existing store (pragmas, FTS5 probe, migration
 * check) and, as the floor, a bare better-sqlite3 open that reads the schema; then runs every query of
 * queries.json once through store.search and prints one JSON line with the timings and the peak RSS
 * (process.resourceUsage().maxRSS, KB) before and after the search workload.
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import { openStore } from '../src/index.ts'

const [path, queriesFile, rawFirst] = process.argv.slice(2)
if (!path || !queriesFile) {
  console.error('usage: scale-probe.ts <db path> <queries.json> <raw-first: 0|1>')
  process.exit(2)
}
const queries = JSON.parse(readFileSync(queriesFile, 'utf8')) as string[]

const rawOpen = () => {
  const start = performance.now()
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.prepare('SELECT count(*) FROM sqlite_master').get()
  const ms = performance.now() - start
  db.close()
  return ms
}
const baseRssKb = process.resourceUsage().maxRSS
let floorOpenMs = rawFirst === '1' ? rawOpen() : Number.NaN
const start = performance.now()
const store = await openStore({ url: path })
const openMs = performance.now() - start
if (rawFirst !== '1') floorOpenMs = rawOpen()
// A second open in the same process: the first one's extra is module loading (the native driver).
const again = performance.now()
await (await openStore({ url: path })).close()
const secondOpenMs = performance.now() - again
const openedRssKb = process.resourceUsage().maxRSS
let hits = 0
for (const q of queries) hits += (await store.search(q, { limit: 20 })).length
await store.close()
console.log(
  JSON.stringify({
    openMs,
    secondOpenMs,
    floorOpenMs,
    baseRssKb,
    openedRssKb,
    peakRssKb: process.resourceUsage().maxRSS,
    hits,
  }),
)
