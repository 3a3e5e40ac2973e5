/**
 * Contention benchmark: 1, 2, 4 and 8 writer processes (better-sqlite3) appending to one file, and a
 * reader searching while 8 of them write. Every run starts from a copy of the same template store (10k
 * realistic messages); variants and writer counts take turns across rounds.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { StoreOptions } from '../src/index.ts'
import {
  type Child,
  exitWithin,
  killIfRunning,
  spawnProcess,
  TSX_LOADER,
  waitForLine,
} from '../test/processes/spawn.ts'
import type { ReaderReport } from './scale-reader.ts'
import { log, median, percentile, rotate } from './scale-stats.ts'
import type { WriterReport } from './scale-writer.ts'

export type RetryVariant = 'default' | 'app-retry' | 'app-retry-10'

/**
 * The store options of each variant: the defaults (SQLite's busy handler for 1 s, then the store's retry
 * with 20–150 ms jitter), or no busy handler and an application retry with a random back-off of 0–2 ms
 * or of 1–10 ms.
 */
export const VARIANT_OPTIONS: Record<RetryVariant, StoreOptions> = {
  default: {},
  'app-retry': { busyTimeout: 0, retry: { attempts: 1_000_000, minDelayMs: 0, maxDelayMs: 2 } },
  'app-retry-10': { busyTimeout: 0, retry: { attempts: 100_000, minDelayMs: 1, maxDelayMs: 10 } },
}

/** How the tables and charts name each variant. */
export const VARIANT_LABELS: Record<RetryVariant, string> = {
  default: 'default (busy_timeout + retry)',
  'app-retry': 'app retry, 0–2 ms back-off',
  'app-retry-10': 'app retry, 1–10 ms back-off',
}

const WRITER_COUNTS = [1, 2, 4, 8] as const

interface ContentionRun {
  writers: number
  variant: RetryVariant
  msgsPerSec: number
  p50Ms: number
  p95Ms: number
  maxMs: number
  errors: number
  /** CPU time of the writers over their wall-clock time (1 = one core busy). */
  cpuCores: number
  /** Share of appends that waited: took ≥ 1 ms, and ≥ 100 ms. */
  over1Ms: number
  over100Ms: number
}

export interface ContentionResult {
  durationMs: number
  rounds: number
  runs: ContentionRun[]
  /** Per writer count and variant: the median over rounds. */
  summary: ContentionRun[]
  reader: {
    soloP95Ms: number
    soloMedianMs: number
    with8P95Ms: number
    with8MedianMs: number
    /** Beside 8 busy-looping processes that do not touch the database: the CPU share alone. */
    busy8P95Ms: number
    busy8MedianMs: number
    errors: number
  }
  errorMessages: string[]
}

const script = (name: string) => fileURLToPath(new URL(name, import.meta.url))
const spawnBench = (name: string, args: string[]): Child =>
  spawnProcess(process.execPath, ['--import', TSX_LOADER, script(name), ...args])

/** The last stdout line of a child that exited with 0, parsed as JSON. */
export async function lastJson<T>(child: Child, timeoutMs = 120_000): Promise<T> {
  const exit = await exitWithin(child, timeoutMs)
  if (exit.code !== 0) throw new Error(`A benchmark child failed.\n${child.describe()}`)
  return JSON.parse(child.stdout().trim().split('\n').at(-1) as string) as T
}

interface OneRun {
  writers: WriterReport[]
  reader: ReaderReport | null
}

async function runOnce(
  template: string,
  dir: string,
  writers: number,
  variant: RetryVariant,
  reader: string | null,
  ms: number,
  busyLoops = 0,
): Promise<OneRun> {
  const path = join(dir, 'contention.db')
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true })
  copyFileSync(template, path)
  const go = join(dir, `go-${Date.now()}-${Math.random()}`)
  const children = Array.from({ length: writers }, (_, i) =>
    spawnBench('scale-writer.ts', [path, String(i), variant, String(ms), go]),
  )
  const readerChild = reader ? spawnBench('scale-reader.ts', [path, reader, String(ms), go]) : null
  const all = readerChild ? [...children, readerChild] : [...children]
  try {
    await Promise.all(all.map((c) => waitForLine(c, (line) => line === 'READY', 120_000)))
    writeFileSync(go, '')
    const loops = Array.from({ length: busyLoops }, () =>
      spawnProcess(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end);`]),
    )
    all.push(...loops)
    return {
      writers: await Promise.all(children.map((c) => lastJson<WriterReport>(c))),
      reader: readerChild ? await lastJson<ReaderReport>(readerChild) : null,
    }
  } finally {
    for (const c of all) killIfRunning(c)
    rmSync(go, { force: true })
  }
}

function summarise(writers: number, variant: RetryVariant, reports: WriterReport[]): ContentionRun {
  const start = Math.min(...reports.map((r) => r.startedAt))
  const end = Math.max(...reports.map((r) => r.endedAt))
  const latencies = reports.flatMap((r) => r.latenciesMs)
  const appends = reports.reduce((n, r) => n + r.appends, 0)
  return {
    writers,
    variant,
    msgsPerSec: (appends / (end - start)) * 1000,
    p50Ms: median(latencies),
    p95Ms: percentile(latencies, 95),
    maxMs: Math.max(...latencies),
    errors: reports.reduce((n, r) => n + r.errors, 0),
    cpuCores: reports.reduce((n, r) => n + r.cpuMs, 0) / (end - start),
    over1Ms: latencies.filter((ms) => ms >= 1).length / latencies.length,
    over100Ms: latencies.filter((ms) => ms >= 100).length / latencies.length,
  }
}

/** Runs the contention benchmark on copies of `template`, in `dir`, with the reader's `queriesFile`. */
export async function runContention(
  template: string,
  dir: string,
  queriesFile: string,
  { rounds, ms }: { rounds: number; ms: number },
): Promise<ContentionResult> {
  const runs: ContentionRun[] = []
  const errorMessages: string[] = []
  const variants = Object.keys(VARIANT_OPTIONS) as RetryVariant[]
  const readerSolo: number[][] = []
  const readerWith8: number[][] = []
  const readerBusy8: number[][] = []
  let readerErrors = 0
  for (let round = 0; round < rounds; round++) {
    for (const writers of rotate(WRITER_COUNTS, round)) {
      for (const variant of rotate(variants, round + writers)) {
        const { writers: reports } = await runOnce(template, dir, writers, variant, null, ms)
        const run = summarise(writers, variant, reports)
        runs.push(run)
        errorMessages.push(...reports.flatMap((r) => r.errorMessages))
        log(
          `contention round ${round + 1}: ${writers} × ${variant}: ${Math.round(run.msgsPerSec)} msgs/s, p95 ${run.p95Ms.toFixed(1)} ms, ${run.errors} errors`,
        )
      }
    }
    for (const setting of rotate(['solo', 'with8', 'busy8'] as const, round)) {
      const writers = setting === 'with8' ? 8 : 0
      const busy = setting === 'busy8' ? 8 : 0
      const { writers: reports, reader } = await runOnce(
        template,
        dir,
        writers,
        'default',
        queriesFile,
        ms,
        busy,
      )
      if (!reader) throw new Error('the reader reported nothing')
      ;({ solo: readerSolo, with8: readerWith8, busy8: readerBusy8 })[setting].push(reader.latenciesMs)
      readerErrors += reader.errors + reports.reduce((n, r) => n + r.errors, 0)
      errorMessages.push(...reader.errorMessages)
      log(
        `contention round ${round + 1}: reader ${setting}: p95 ${percentile(reader.latenciesMs, 95).toFixed(1)} ms over ${reader.latenciesMs.length} searches, ${reader.errors} errors`,
      )
    }
  }
  const summary = WRITER_COUNTS.flatMap((writers) =>
    variants.map((variant): ContentionRun => {
      const mine = runs.filter((r) => r.writers === writers && r.variant === variant)
      const pick = (key: 'msgsPerSec' | 'p50Ms' | 'p95Ms' | 'maxMs' | 'cpuCores' | 'over1Ms' | 'over100Ms') =>
        median(mine.map((r) => r[key]))
      return {
        writers,
        variant,
        msgsPerSec: pick('msgsPerSec'),
        p50Ms: pick('p50Ms'),
        p95Ms: pick('p95Ms'),
        maxMs: pick('maxMs'),
        errors: mine.reduce((n, r) => n + r.errors, 0),
        cpuCores: pick('cpuCores'),
        over1Ms: pick('over1Ms'),
        over100Ms: pick('over100Ms'),
      }
    }),
  )
  const p = (lists: number[][], q: number) => median(lists.map((l) => percentile(l, q)))
  return {
    durationMs: ms,
    rounds,
    runs,
    summary,
    reader: {
      soloP95Ms: p(readerSolo, 95),
      soloMedianMs: p(readerSolo, 50),
      with8P95Ms: p(readerWith8, 95),
      with8MedianMs: p(readerWith8, 50),
      busy8P95Ms: p(readerBusy8, 95),
      busy8MedianMs: p(readerBusy8, 50),
      errors: readerErrors,
    },
    errorMessages: errorMessages.slice(0, 20),
  }
}
