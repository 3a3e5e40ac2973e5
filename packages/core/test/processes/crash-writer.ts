/**
 * The writer the crash test kills.
 *
 *   tsx crash-writer.ts <db path> <driver> <session id> <round>
 *
 * Appends crashMessage(round, 0), crashMessage(round, 1), ... to the session forever, one appendMessage
 * (one committed transaction) at a time, and prints `<id> <i>` on stdout the moment each append resolves.
 * On Linux, writes to a pipe are synchronous, so a printed line means the append had resolved.
 */
import { type DriverName, openStore } from '@engram/core'
import { crashMessage } from './crash-messages.ts'

const [path, driver, sessionId, roundArg] = process.argv.slice(2)
if (!path || !driver || !sessionId || !roundArg) {
  console.error('usage: crash-writer.ts <db path> <driver> <session id> <round>')
  process.exit(2)
}
const round = Number(roundArg)
const store = await openStore({ url: path, driver: driver as DriverName })

// Bounded only so a parent that never kills leaves no runaway process behind.
for (let i = 0; i < 1_000_000; i++) {
  const stored = await store.appendMessage(sessionId, crashMessage(round, i))
  process.stdout.write(`${stored.id} ${i}\n`)
}
await store.close()
