/**
 * The soak run, shared by the short vitest version and `pnpm soak`: writer processes append
 * messages with unique tokens and log what the store acknowledged, a reader searches, a maintenance
 * process prunes sessions and rebuilds the search index, and writers are SIGKILLed at random moments and
 * restarted. Afterwards the store is checked against the acknowledgement logs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { openStore, type StoredMessage } from '../src/index.ts'
import { soakSessionId } from './processes/soak-ids.ts'
import { type Child, exitWithin, killIfRunning, spawnScript, waitForLine } from './processes/spawn.ts'

export interface SoakOptions {
  /** A fresh, empty folder for the database and the logs. */
  dir: string
  writers: number
  /** Runs at least this long, and on until `minimum` is reached (counted work, whatever the machine's load). */
  durationMs: number
  /** What the run must have done before it stops: acknowledged messages and kills (and always one search and one index rebuild). */
  minimum?: { acknowledged: number; kills: number }
  /** A writer is killed after a random pause of up to this many ms, then restarted at once. */
  maxKillIntervalMs: number
  /** Called with progress lines (the long run prints them). */
  progress?: (line: string) => void
}

export interface SoakReport {
  acknowledged: number
  /** Messages stored but never acknowledged (the writer died between commit and its log line). */
  unacknowledged: number
  kills: number
  writerErrors: string[]
  reader: { searches: number; errors: number; errorMessages: string[] }
  maintenance: { cycles: number; pruned: number; rebuilds: number; errors: number; errorMessages: string[] }
  integrity: { ok: boolean; database: string[]; searchIndex: { messages: string; episodes: string } }
  tokensFound: number
  /** Every violation found; empty when the run passed. */
  problems: string[]
}

const TOKEN = /tok\d+p\d+n\d+/g

const ackFile = (dir: string, writer: number) => join(dir, `ack-${writer}.log`)

/** The acknowledged (id, token) pairs of one writer, in log order; a torn last line is not an ack. */
function readAcks(file: string): { id: number; token: string }[] {
  if (!existsSync(file)) return []
  const text = readFileSync(file, 'utf8')
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, token] = line.split(' ')
      return { id: Number(id), token: token as string }
    })
}

const tokensOf = (m: StoredMessage) =>
  `${typeof m.content === 'string' ? m.content : ''} ${JSON.stringify(m.tool_calls ?? [])}`.match(TOKEN) ?? []

async function verify(dir: string, path: string, writers: number, kills: number[], report: SoakReport) {
  const store = await openStore({ url: path })
  try {
    for (let w = 0; w < writers; w++) {
      const acks = readAcks(ackFile(dir, w))
      report.acknowledged += acks.length
      const stored = await store.getStoredMessages(soakSessionId(w))
      const seen = new Map<string, number[]>()
      for (const m of stored)
        for (const t of new Set(tokensOf(m))) seen.set(t, [...(seen.get(t) ?? []), m.id])
      const acked = new Set(acks.map((a) => a.token))
      for (const [i, a] of acks.entries()) {
        const ids = seen.get(a.token) ?? []
        if (ids.length !== 1 || ids[0] !== a.id)
          report.problems.push(
            `writer ${w}: ${a.token} acknowledged as id ${a.id} is stored as [${ids.join(', ')}]`,
          )
        if (i > 0 && a.id <= (acks[i - 1]?.id ?? 0))
          report.problems.push(`writer ${w}: acknowledged ids out of order at ${a.token}`)
      }
      const extra = [...seen.keys()].filter((t) => !acked.has(t)).length
      report.unacknowledged += extra
      // One message at most per kill can be committed without its log line.
      if (extra > (kills[w] ?? 0))
        report.problems.push(`writer ${w}: ${extra} unacknowledged messages but only ${kills[w]} kills`)
      const session = await store.getSession(soakSessionId(w))
      if (session && session.messageCount !== stored.length)
        report.problems.push(`writer ${w}: message_count ${session.messageCount} but ${stored.length} rows`)
      for (const a of acks) {
        const hits = await store.search(a.token, { limit: 5, includeEpisodes: false })
        if (hits.some((h) => h.messageId === a.id)) report.tokensFound++
        else report.problems.push(`writer ${w}: searching ${a.token} does not find message ${a.id}`)
      }
    }
    report.integrity = await store.checkIntegrity()
    if (!report.integrity.ok)
      report.problems.push(`integrity check failed: ${JSON.stringify(report.integrity)}`)
  } finally {
    await store.close()
  }
}

/** Runs the soak and checks the result; the report's `problems` lists every violation. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { dir, writers } = options
  const path = join(dir, 'soak.db')
  const stop = join(dir, 'stop')
  await (await openStore({ url: path })).close()
  const startWriter = (w: number) => spawnScript('soak-writer.ts', [path, String(w), ackFile(dir, w), stop])
  const team = Array.from({ length: writers }, (_, w) => startWriter(w))
  const reader = spawnScript('soak-reader.ts', [path, stop])
  const pruner = spawnScript('soak-pruner.ts', [path, stop])
  const kills = new Array<number>(writers).fill(0)
  const report: SoakReport = {
    acknowledged: 0,
    unacknowledged: 0,
    kills: 0,
    writerErrors: [],
    reader: { searches: 0, errors: 0, errorMessages: [] },
    maintenance: { cycles: 0, pruned: 0, rebuilds: 0, errors: 0, errorMessages: [] },
    integrity: { ok: false, database: [], searchIndex: { messages: '', episodes: '' } },
    tokensFound: 0,
    problems: [],
  }
  try {
    await Promise.all([reader, pruner].map((c) => waitForLine(c, (l) => l === 'READY', 600_000)))
    // A loaded machine does less in the same time: the run goes on until it has done what the checks need.
    const minimum = options.minimum ?? { acknowledged: 0, kills: 0 }
    const acknowledged = () =>
      Array.from({ length: writers }, (_, w) => readAcks(ackFile(dir, w)).length).reduce((a, b) => a + b, 0)
    const endAt = Date.now() + options.durationMs
    while (Date.now() < endAt || report.kills < minimum.kills || acknowledged() < minimum.acknowledged) {
      await sleep(Math.random() * options.maxKillIntervalMs)
      const w = Math.floor(Math.random() * writers)
      const victim = team[w] as Child
      victim.proc.kill('SIGKILL')
      const exit = await exitWithin(victim, 600_000)
      if (exit.signal !== 'SIGKILL' && exit.code !== 0)
        report.problems.push(`writer ${w} failed before it was killed:\n${victim.describe()}`)
      kills[w] = (kills[w] ?? 0) + 1
      report.kills++
      team[w] = startWriter(w)
      options.progress?.(
        `${Math.round((endAt - Date.now()) / 1000)} s left: ${report.kills} kills, ${readAcks(ackFile(dir, 0)).length} acks by writer 0`,
      )
    }
    // One search and one index rebuild at least (waitForLine also counts lines printed before it is called).
    await Promise.all([
      waitForLine(reader, (l) => l === 'SEARCHED', 600_000),
      waitForLine(pruner, (l) => l === 'REBUILT', 600_000),
    ])
    writeFileSync(stop, '')
    for (const [w, child] of team.entries()) {
      const exit = await exitWithin(child, 600_000)
      if (exit.code !== 0) report.problems.push(`writer ${w} did not stop cleanly:\n${child.describe()}`)
    }
    for (const [name, child] of [
      ['reader', reader],
      ['maintenance', pruner],
    ] as const) {
      const exit = await exitWithin(child, 600_000)
      if (exit.code !== 0) {
        report.problems.push(`the ${name} process failed:\n${child.describe()}`)
        continue
      }
      const out = JSON.parse(child.stdout().trim().split('\n').at(-1) as string)
      if (name === 'reader') report.reader = out
      else report.maintenance = out
    }
  } finally {
    for (const child of [...team, reader, pruner]) killIfRunning(child)
  }
  for (let w = 0; w < writers; w++) {
    const errors = `${ackFile(dir, w)}.errors`
    if (existsSync(errors))
      report.writerErrors.push(...readFileSync(errors, 'utf8').split('\n').filter(Boolean))
  }
  if (report.writerErrors.length > 0)
    report.problems.push(`writer errors: ${report.writerErrors.slice(0, 5).join(' | ')}`)
  if (report.reader.errors > 0)
    report.problems.push(`reader errors: ${report.reader.errorMessages.join(' | ')}`)
  if (report.maintenance.errors > 0)
    report.problems.push(`maintenance errors: ${report.maintenance.errorMessages.join(' | ')}`)
  await verify(dir, path, writers, kills, report)
  return report
}
