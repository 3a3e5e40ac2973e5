/**
 * Opens (and so migrates) a store once the go file exists, then appends one message and prints a JSON
 * report: `{ "ok": true }` or `{ "ok": false, "code": ..., "message": ... }`.
 *
 *   tsx open-worker.ts <db path> <go file> [driver]
 */
import { type DriverName, openStore } from '@engram/core'
import { waitForGoFile } from './go-file.ts'

const [path, goFile, driverArg] = process.argv.slice(2)
if (!path || !goFile) {
  console.error('usage: open-worker.ts <db path> <go file> [driver]')
  process.exit(2)
}
console.log('READY')
await waitForGoFile(goFile)
try {
  const store = await openStore({
    url: path,
    driver: (driverArg as DriverName | undefined) ?? 'better-sqlite3',
  })
  const session = await store.createSession({ source: 'open-worker' })
  await store.appendMessage(session.id, { role: 'user', content: `opened by ${process.pid}` })
  await store.close()
  console.log(JSON.stringify({ ok: true }))
} catch (error) {
  const e = error as { code?: string; message?: string }
  console.log(JSON.stringify({ ok: false, code: e.code, message: e.message ?? String(error) }))
}
