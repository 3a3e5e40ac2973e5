import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constants, PerformanceObserver, performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, expect, it } from 'vitest'
import { handlesOn } from '../src/drivers/file-handles.ts'
import { libsqlDriver } from '../src/drivers/libsql.ts'
import { openStore } from '../src/index.ts'

const dir = join(tmpdir(), `engram-libsql-close-${process.pid}`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

/** The full collections `work` ran: GC entries that started before a collection run after it is seen. */
async function majorCollections(work: () => Promise<void>): Promise<number> {
  const entries: { start: number; kind: number }[] = []
  let mark = Number.POSITIVE_INFINITY
  let markSeen: () => void = () => {}
  const seen = new Promise<void>((resolve) => {
    markSeen = resolve
  })
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      entries.push({
        start: entry.startTime,
        kind: (entry as unknown as { detail: { kind: number } }).detail.kind,
      })
      if (entry.startTime >= mark) markSeen()
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  await work()
  mark = performance.now()
  gc()
  await seen
  observer.disconnect()
  return entries.filter((e) => e.start < mark && e.kind === constants.NODE_PERFORMANCE_GC_MAJOR).length
}

it('closes a second libSQL connection on a file the store holds without collecting garbage to wait for handles SQLite keeps', async () => {
  const path = join(dir, 'store.db')
  const store = await openStore({ url: path, driver: 'libsql' })
  const s = await store.createSession({ source: 'cli' })
  await store.appendMessage(s.id, { role: 'user', content: 'one' })
  const held = handlesOn(path)?.size ?? 0
  expect(held).toBeGreaterThan(0)
  const second = libsqlDriver({ url: path })
  await second.execute({ sql: 'UPDATE messages SET content = ?', params: ['two'] })
  expect(handlesOn(path)?.size).toBeGreaterThan(held)
  // SQLite keeps a closed connection's descriptors while another connection of the process holds locks on
  // the file; collecting cannot release them, so close collects once (its dropped statements), not 20 times
  const collections = await majorCollections(() => second.close())
  expect(collections).toBeLessThanOrEqual(2)
  expect((await store.getMessages(s.id))[0]?.content).toBe('two')
  await store.close()
  // nothing leaks: once the store lets go, every descriptor on the file is closed
  expect(handlesOn(path)?.size).toBe(0)
})

it('releases a closed store’s file with a collection of the young generation, not of the whole heap each time', async () => {
  const closes = 10
  const collections = await majorCollections(async () => {
    for (let round = 0; round < closes; round++) {
      const path = join(dir, `alone-${round}.db`)
      const store = await openStore({ url: path, driver: 'libsql' })
      const s = await store.createSession({ source: 'cli' })
      await store.appendMessage(s.id, { role: 'user', content: `round ${round}` })
      await store.close()
      expect(handlesOn(path)?.size).toBe(0)
    }
  })
  // a full collection per close before: its cost grows with the whole heap (about 100 ms at 120 MB)
  expect(collections).toBeLessThan(closes / 2)
})
