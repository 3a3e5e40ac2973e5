/**
 * How fast the pages of `engram ui` answer on a large store: builds (or reuses) a database of realistic
 * agent traffic through the public API — the scale benchmark's corpus: sessions of 1,000 messages and one
 * of 20,000 — plus model calls of every purpose, then requests every page in-process (the hono app, no
 * socket) and prints the median and worst of 5 requests each.
 *
 *   npx tsx --conditions=engram-source apps/cli/bench/ui.bench.ts [--messages 1000000] [--db path]
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig, MemoryFiles } from '@engram/agent'
import { openStore } from '@engram/core'
import { BIG_SESSION, Corpus } from '../../../packages/core/bench/scale-corpus.ts'
import { createUiApp } from '../src/ui/app.ts'

const { values } = parseArgs({
  options: { messages: { type: 'string', default: '1000000' }, db: { type: 'string' } },
})
const messages = Number(values.messages)
const db = values.db ?? join('/tmp', `engram-ui-bench-${messages}.db`)
const fresh = !existsSync(db)
const store = await openStore({ url: db })
if (fresh) {
  const started = Date.now()
  await new Corpus(store, 7).growTo(messages, (n) =>
    process.stderr.write(`\r${n.toLocaleString()} messages…`),
  )
  const sessions = await store.listSessions({ limit: 1000 })
  const purposes = ['main', 'main', 'main', 'main', 'compression', 'nudge', 'search']
  for (const [i, s] of sessions.entries()) {
    for (let k = 0; k < 20; k++) {
      const purpose = purposes[(i + k) % purposes.length] as string
      await store.recordUsage(s.id, { model: 'm', purpose, inputTokens: 1000 + k, outputTokens: 100 })
    }
  }
  process.stderr.write(
    `\rbuilt ${messages.toLocaleString()} messages in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  )
}
const config = loadConfig({ env: {}, cwd: '/tmp' })
const memory = new MemoryFiles(config.memoryFiles)
const token = 'bench'
const app = createUiApp({
  store,
  memory,
  config,
  token,
  basePath: '/b/',
  port: () => 1,
  allowEdit: false,
  database: 'x',
  remoteAddress: () => '127.0.0.1',
})
const get = async (path: string) => {
  const response = await app.request(`http://127.0.0.1:1/b${path}`, {
    headers: { host: '127.0.0.1:1', cookie: `engram_ui_1=${token}` },
  })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`)
  return body
}
const [sample] = await store.listSessions({ source: 'bench', limit: 1 })
const pages = [
  ['sessions', '/'],
  ['sessions, filtered by date', '/?from=2025-01-01&to=2026-12-31'],
  ['search, English word', '/search?q=deploy'],
  ['search, Chinese word', `/search?q=${encodeURIComponent('部署')}`],
  ['search, page 10', '/search?q=error&page=10'],
  ['session (1,000 messages), first page', `/sessions/${sample?.id}`],
  ['session (20,000 messages), first page', `/sessions/${BIG_SESSION}`],
  ['session (20,000 messages), from message 15,000', `/sessions/${BIG_SESSION}?from=${15_000}`],
  ['what the model sees (1,000 messages)', `/sessions/${sample?.id}/context`],
  ['what the model sees (20,000 messages)', `/sessions/${BIG_SESSION}/context`],
  ['memory', '/memory'],
  ['tokens and cost', '/usage'],
  ['tokens and cost, one session', `/usage?session=${sample?.id}`],
] as const
console.log(
  `engram ui on ${messages.toLocaleString()} messages (${new Date().toISOString().slice(0, 10)}): ms per request, 5 requests`,
)
console.log('page'.padEnd(50), 'median'.padStart(8), 'max'.padStart(8), 'bytes'.padStart(9))
for (const [name, path] of pages) {
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    bytes = (await get(path)).length
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  console.log(
    name.padEnd(50),
    (times[2] as number).toFixed(1).padStart(8),
    (times[4] as number).toFixed(1).padStart(8),
    String(bytes).padStart(9),
  )
}
await store.close()
