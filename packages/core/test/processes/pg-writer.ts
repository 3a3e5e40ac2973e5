/**
 * One writer of the PostgreSQL many-writers test.
 *
 *   pg-writer.ts <url> <schema> <writer> <from> <to> <own session id> <shared session id>
 *
 * Appends `w<writer>-<i>` for i = from..to-1, one appendMessage at a time, to its own session and then to
 * the shared one, and prints `ACK <own|shared> <i> <id>` after each append the store acknowledged. The
 * store retries through a server restart (and opening it waits for one); an append that still fails prints
 * `FAILED` and exits 1.
 */
import { type EngramError, openStore, type Store } from '@engram/core'

const [url, schema, writer, from, to, own, shared] = process.argv.slice(2)
if (!url || !schema || !writer || !from || !to || !own || !shared) {
  console.error('usage: pg-writer.ts <url> <schema> <writer> <from> <to> <own session> <shared session>')
  process.exit(2)
}
/** Opens the store, waiting out a server that is restarting (a writer started during the restart). */
async function open(): Promise<Store> {
  for (const deadline = Date.now() + 600_000; ; ) {
    try {
      return await openStore({
        url: url as string,
        schema,
        poolSize: 2,
        retry: { attempts: 200, minDelayMs: 20, maxDelayMs: 400 },
      })
    } catch (error) {
      const code = (error as EngramError).code
      if ((code !== 'DATABASE_UNREACHABLE' && code !== 'DATABASE_BUSY') || Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}
const store = await open()
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
