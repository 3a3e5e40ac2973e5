/**
 * What the conversation-window index (store/window-index.ts) costs, measured against the same store with
 * its batches turned off (the append path of before the index) in one run, interleaved, medians:
 *
 *   npx tsx packages/core/eval/window-index-cost.ts [--messages N] [--rounds R] [--w1-only]
 *
 * - W1: appendMessage, one message per call (one transaction each), of the storage bench's generated
 *   messages (bench/data.ts) and of the chat set's named short turns; against the raw prepared INSERT of
 *   the same rows into the same schema (the floor `pnpm bench` uses), so each arm is a ratio to its floor.
 *   Arms: `before` (no window batches, no name index: the append path before migration 0008), `no
 *   windows` (the name index only), `windows` (everything; it pays for its batches inside the timed loop
 *   whenever they run there).
 * - bytes per message after close() (which indexes what is pending) with and without windows, at 20,000
 *   bench messages and at four copies of the chat set (24,380 turns).
 * - question cost: the chat set's questions through store.search (under their user, limit 50) against a
 *   keyword search of the same words, on the four-copy chat store with its windows indexed.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { Generator } from '../bench/data.ts'
import { openRaw } from '../bench/raw.ts'
import { type MessageInput, openStore, type Store } from '../src/index.ts'
import { parseSearchQuery } from '../src/search/query.ts'
import { encodeMessage, MESSAGE_COLUMNS } from '../src/store/message-codec.ts'
import { WindowIndexer } from '../src/store/window-index.ts'
import { buildChatDataset } from './chats/build-chats.ts'

const args = process.argv.slice(2)
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const MESSAGES = flag('--messages', 20_000)
const ROUNDS = flag('--rounds', 3)
const W1_MESSAGES = 5000
const tmp = mkdtempSync(join(tmpdir(), 'engram-window-cost-'))
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))
let seq = 0
const newPath = () => join(tmp, `${++seq}.db`)
const fileBytes = (path: string) =>
  ['', '-wal'].reduce((n, suffix) => n + (statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0), 0)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

// The arm without windows: the indexer's hooks do nothing, so appends, ends and close() are as before.
const hooks = { appended: WindowIndexer.prototype.appended, close: WindowIndexer.prototype.close }
function windowsOn(on: boolean): void {
  WindowIndexer.prototype.appended = on ? hooks.appended : () => undefined
  WindowIndexer.prototype.close = on ? hooks.close : () => Promise.resolve()
}

type Row = { sessionId: string; message: MessageInput }

async function load(rows: readonly Row[], userOf?: (sessionId: string) => string) {
  const path = newPath()
  const store = await openStore({ url: path })
  for (const id of new Set(rows.map((r) => r.sessionId)))
    await store.createSession({ id, source: 'bench', ...(userOf ? { userId: userOf(id) } : {}) })
  return { path, store }
}

async function storeW1(rows: readonly Row[], arm: { windows: boolean; nameIndex: boolean }): Promise<number> {
  windowsOn(arm.windows)
  const { store } = await load(rows)
  if (!arm.nameIndex) await store.db.run(sql`DROP INDEX messages_name_idx`)
  const start = performance.now()
  for (const { sessionId, message } of rows) await store.appendMessage(sessionId, message)
  const ms = performance.now() - start
  await store.close()
  return rows.length / (ms / 1000)
}

const PLACEHOLDERS = MESSAGE_COLUMNS.split(',')
  .map(() => '?')
  .join(', ')
async function floorW1(rows: readonly Row[]): Promise<number> {
  const { path, store } = await load(rows)
  await store.close()
  const db = openRaw(path)
  const stmt = db.prepare(`INSERT INTO messages (session_id, ${MESSAGE_COLUMNS}) VALUES (?, ${PLACEHOLDERS})`)
  const now = Date.now()
  const encoded = rows.map((r) => [r.sessionId, ...encodeMessage(r.message, now).values])
  const tx = db.transaction((values: unknown[]) => void stmt.run(...values))
  const start = performance.now()
  for (const values of encoded) tx.immediate(values)
  const ms = performance.now() - start
  db.close()
  return rows.length / (ms / 1000)
}

async function bytesPerMessage(rows: readonly Row[], on: boolean): Promise<number> {
  windowsOn(on)
  const { path, store } = await load(rows)
  for (const { sessionId, message } of rows) await store.appendMessage(sessionId, message)
  await store.close()
  windowsOn(true)
  return fileBytes(path) / rows.length
}

const chat = buildChatDataset()
const chatRows = (copies: number): Row[] =>
  Array.from({ length: copies }, (_, copy) =>
    chat.conversations.flatMap((c) =>
      c.sessions.flatMap((s) =>
        s.messages.map((m) => ({
          sessionId: `${copy}|${c.key}|${s.key}`,
          message: { role: m.role, name: m.name, content: m.content, timestamp: m.timestamp } as MessageInput,
        })),
      ),
    ),
  ).flat()
const userOf = (sessionId: string) => sessionId.split('|').slice(0, 2).join('|')

async function main() {
  const bench = new Generator(20261201).dataset(MESSAGES / 20, 20, 'sess').all
  const corpora = { bench: bench.slice(0, W1_MESSAGES), chat: chatRows(1).slice(0, W1_MESSAGES) }
  const w1: Record<string, number[]> = {}
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, rows] of Object.entries(corpora)) {
      const arms: [string, () => Promise<number>][] = [
        ['floor', () => floorW1(rows)],
        ['before', () => storeW1(rows, { windows: false, nameIndex: false })],
        ['no windows', () => storeW1(rows, { windows: false, nameIndex: true })],
        ['windows', () => storeW1(rows, { windows: true, nameIndex: true })],
      ]
      if (round % 2 === 1) arms.reverse()
      for (const [arm, run] of arms) {
        const rate = await run()
        w1[`${name} ${arm}`] = [...(w1[`${name} ${arm}`] ?? []), rate]
      }
      windowsOn(true)
    }
  }
  console.log(
    `W1, ${W1_MESSAGES} appends per arm, ${ROUNDS} interleaved rounds (median msgs/s, ratio to the floor):`,
  )
  for (const name of Object.keys(corpora)) {
    const floor = median(w1[`${name} floor`] as number[])
    for (const arm of ['before', 'no windows', 'windows']) {
      const rate = median(w1[`${name} ${arm}`] as number[])
      console.log(
        `  ${name.padEnd(6)} ${arm.padEnd(11)} ${rate.toFixed(0).padStart(6)}/s  ${(rate / floor).toFixed(3)} of floor ${floor.toFixed(0)}/s`,
      )
    }
  }

  if (args.includes('--w1-only')) return
  const big = chatRows(4)
  console.log('bytes per message after close():')
  for (const [name, rows] of [
    [`bench ${bench.length}`, bench],
    [`chat ${big.length}`, big],
  ] as const) {
    const without = await bytesPerMessage(rows, false)
    const withWindows = await bytesPerMessage(rows, true)
    console.log(
      `  ${name.padEnd(12)} no windows ${without.toFixed(0)} B, windows ${withWindows.toFixed(0)} B`,
    )
  }

  const { store } = await load(big, userOf)
  for (const { sessionId, message } of big) await store.appendMessage(sessionId, message)
  await store.rebuildSearchIndex()
  await questionCost(store)
  await store.close()
}

async function questionCost(store: Store) {
  const times = { question: [] as number[], keywords: [] as number[] }
  const keywordsOf = (q: string) =>
    parseSearchQuery(q)
      .map((t) => t.text)
      .join(' ')
  const timed = async (key: keyof typeof times, q: string, userId: string) => {
    const t = performance.now()
    await store.search(q, { userId, limit: 50, includeEpisodes: false })
    times[key].push(performance.now() - t)
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, q] of chat.questions.entries()) {
      const userId = `${round % 4}|${q.conversation}`
      const pair: [keyof typeof times, string][] = [
        ['question', q.question],
        ['keywords', keywordsOf(q.question)],
      ]
      if ((i + round) % 2 === 1) pair.reverse()
      for (const [key, text] of pair) await timed(key, text, userId)
    }
  }
  const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] as number
  const [q, k] = [times.question, times.keywords]
  console.log(
    `questions (${q.length}) vs the same words as keywords, limit 50 under the user: median ${median(q).toFixed(2)} vs ${median(k).toFixed(2)} ms (${(median(q) / median(k)).toFixed(2)}×), p95 ${p95(q).toFixed(2)} vs ${p95(k).toFixed(2)} ms`,
  )
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 2
})
