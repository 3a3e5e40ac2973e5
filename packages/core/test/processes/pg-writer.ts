/**
 * One writer of the PostgreSQL many-writers test.
 *
 *   pg-writer.ts <url> <schema> <writer> <from> <to> <own session id> <shared session id>
 *
 * Appends `w<writer>-<i>` for i = from..to-1, one appendMessage at a time, to its own session and then to
 * the shared one, and prints `ACK <own|shared> <i> <id>` after each append the store acknowledged. The
 * store retries through a server restart; an append that still fails prints `FAILED` and exits 1.
 */
import { openStore } from '../../src/index.ts'

const [url, schema, writer, from, to, own, shared] = process.argv.slice(2)
if (!url || !schema || !writer || !from || !to || !own || !shared) {
  console.error('usage: pg-writer.ts <url> <schema> <writer> <from> <to> <own session> <shared session>')
  process.exit(2)
}
const store = await openStore({
  url,
  schema,
  poolSize: 2,
  retry: { attempts: 200, minDelayMs: 20, maxDelayMs: 400 },
})
try {
  for (let i = Number(from); i < Number(to); i++) {
    for (const [kind, session] of [
      ['own', own],
      ['shared', shared],
    ] as const) {
      const stored = await store.appendMessage(session, { role: 'user', content: `w${writer}-${i}` })
      console.log(`ACK ${kind} ${i} ${stored.id}`)
    }
  }
} catch (error) {
  console.log(`FAILED ${(error as Error).message}`)
  process.exitCode = 1
} finally {
  await store.close()
}
