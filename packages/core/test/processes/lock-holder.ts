/**
 * Holds the database's write lock for a while, as another process mid-transaction would.
 *
 *   tsx lock-holder.ts <db path> <hold ms>
 *
 * Takes the lock with BEGIN IMMEDIATE, prints `LOCKED`, waits, writes `<db path>.releasing` (so a test can tell,
 * without a clock, that its own write finished after this point), commits (nothing), prints `RELEASED`.
 */
import { writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'

const [path, holdArg] = process.argv.slice(2)
if (!path || !holdArg) {
  console.error('usage: lock-holder.ts <db path> <hold ms>')
  process.exit(2)
}
const db = new Database(path)
db.exec('BEGIN IMMEDIATE')
console.log('LOCKED')
await sleep(Number(holdArg))
writeFileSync(`${path}.releasing`, '')
db.exec('COMMIT')
db.close()
console.log('RELEASED')
