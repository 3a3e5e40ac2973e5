import v8 from 'node:v8'
import vm from 'node:vm'
import type { SyncConnection, SyncStatement } from './sync-sqlite.ts'

type Collect = (options?: { type: 'minor' }) => void
let gc: Collect | undefined

/**
 * A garbage collection, then a turn of the event loop for the finalizers it queued: of the young generation
 * only (a scavenge, under a millisecond) or of the whole heap (about 100 ms in a 120 MB heap). libSQL's
 * binding has no way to finalize a statement: an unfinished one (stopped by SQLITE_BUSY) stays "in progress"
 * and makes every later COMMIT fail, and a closed connection keeps its file, -wal and -shm open as long as
 * one of its statements lives. Only the statement's finalizer, run by the garbage collector, ends either.
 */
async function finalizeUnreachable(generation: 'young' | 'all'): Promise<void> {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc')
    gc = vm.runInNewContext('gc') as Collect
  }
  // `gc()` with no options: on Node 20, `{ type: 'major' }` only schedules the collection.
  if (generation === 'young') gc({ type: 'minor' })
  else gc()
  await new Promise((resolve) => setImmediate(resolve))
}

/** The most full collections `settle` runs after close while the closed connection's files stay open. */
const CLOSE_ROUNDS = 20

/**
 * A libSQL connection whose statements are dropped, to be finalized, when they fail (the next use
 * prepares the SQL anew) and when the connection closes. `settle` finalizes what was dropped; call it
 * after an error and after close, before the connection or its file is used again. After an error it
 * collects the whole heap. After close, with `stillOpen` (the connection's file handles still open, where
 * the system shows them), it collects the young generation first, where a connection that lived for a
 * moment keeps its statements, then the whole heap while a handle stays open, at most {@link CLOSE_ROUNDS}
 * times: a finalizer can free what holds the next one.
 */
export function finalizingStatements(
  db: SyncConnection,
  stillOpen: () => boolean = () => false,
): {
  connection: SyncConnection
  settle(): Promise<void>
} {
  let dropped = false
  let closed = false
  const statement = (sql: string, first: SyncStatement): SyncStatement => {
    let current: SyncStatement | undefined = first
    const use = <T>(step: (s: SyncStatement) => T): T => {
      current ??= db.prepare(sql)
      try {
        return step(current)
      } catch (error) {
        // An error's unformatted stack holds each frame's receiver, the statement among them.
        void (error as Error | undefined)?.stack
        current = undefined
        dropped = true
        throw error
      }
    }
    return {
      reader: first.reader,
      all: (params) => use((s) => s.all(params)),
      run: (params) => use((s) => s.run(params)),
    }
  }
  return {
    connection: {
      prepare: (sql) => statement(sql, db.prepare(sql)),
      transaction: (fn) => db.transaction(fn),
      close: () => {
        dropped = true
        closed = true
        db.close()
      },
    },
    async settle() {
      if (!dropped) return
      dropped = false
      let full = 0
      if (closed && stillOpen()) await finalizeUnreachable('young')
      else {
        await finalizeUnreachable('all')
        full = 1
      }
      for (; closed && full < CLOSE_ROUNDS && stillOpen(); full++) await finalizeUnreachable('all')
    },
  }
}
