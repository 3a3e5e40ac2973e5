// Prints which native SQLite modules the process has loaded after importing @engram/core and,
// if a driver is named, after opening a store with it.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '@engram/core'

const loaded = () =>
  (process.report.getReport() as { sharedObjects: string[] }).sharedObjects.filter((lib) =>
    /better_sqlite3|libsql/i.test(lib),
  )

const driver = process.argv[2] as 'better-sqlite3' | 'libsql' | undefined
const afterImport = loaded()
let afterOpen: string[] = []
if (driver) {
  const store = await openStore({ url: join(tmpdir(), `engram-native-${process.pid}.db`), driver })
  afterOpen = loaded()
  await store.close()
}
process.stdout.write(JSON.stringify({ afterImport, afterOpen }))
