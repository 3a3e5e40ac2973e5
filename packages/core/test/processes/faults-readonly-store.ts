/**
 * Opens a store on a database file this process may only read (the fault test runs it as another user,
 * on a file with mode 0444), tries to read, search and write, and prints what happened as one JSON line.
 *
 *   node --import tsx faults-readonly-store.ts <db path> <session id> <search word>
 */
import { EngramError, openStore } from '@engram/core'

const [path, sessionId, word] = process.argv.slice(2)
if (!path || !sessionId || !word) {
  console.error('usage: faults-readonly-store.ts <db path> <session id> <search word>')
  process.exit(2)
}
const outcome = async (work: () => Promise<unknown>) => {
  try {
    return { ok: true, value: await work() }
  } catch (error) {
    return error instanceof EngramError
      ? { ok: false, code: error.code, message: error.message }
      : { ok: false, code: 'NOT_AN_ENGRAM_ERROR', message: String(error) }
  }
}
const store = await openStore({ url: path })
const report = {
  append: await outcome(() => store.appendMessage(sessionId, { role: 'user', content: 'refused' })),
  create: await outcome(() => store.createSession({ source: 'readonly' })),
  messages: await outcome(() => store.getMessages(sessionId)),
  search: await outcome(async () => (await store.search(word, { includeEpisodes: false })).length),
}
await store.close()
console.log(JSON.stringify(report))
