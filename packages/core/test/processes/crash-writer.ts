/**
 * The writer the crash test kills.
 *
 *   tsx crash-writer.ts <db path> <driver> <session id> <round>
 *
 * Appends crashMessage(round, 0), crashMessage(round, 1), ... to the session forever, one appendMessage
 * (one committed transaction) at a time, and prints `<id> <i>` on stdout the moment each append resolves,
 * waiting for the line to reach the pipe before the next append (see `acknowledge`).
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

/**
 * Writes a line and resolves once it is in the pipe. A pipe's stdout is not blocking in Node: a write the pipe
 * cannot take waits in this process, flushed only when the event loop polls, which a loop of synchronous
 * appends never lets it do. On a busy machine the acknowledgements then piled up here, out of the parent's
 * sight and lost with the SIGKILL, while the appends went on (a test run saw 998,668 rows no line had
 * acknowledged). So a line the pipe did not take at once is waited for: at most the one line being written
 * is ever outside the pipe, and while the pipe takes them the appends go on at full speed.
 */
const acknowledge = (line: string) =>
  new Promise<void>((resolve, reject) => {
    process.stdout.write(line, (error) => (error ? reject(error) : resolve()))
    if (process.stdout.writableLength === 0) resolve()
  })

// Bounded only so a parent that never kills leaves no runaway process behind.
for (let i = 0; i < 1_000_000; i++) {
  const stored = await store.appendMessage(sessionId, crashMessage(round, i))
  await acknowledge(`${stored.id} ${i}\n`)
}
await store.close()
