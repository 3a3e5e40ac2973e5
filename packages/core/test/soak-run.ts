/**
 * The long soak: `pnpm soak [--minutes 10] [--writers 8] [--kill-ms 1000]`. Prints progress and a JSON
 * report, and exits 1 when any acknowledged message is missing, duplicated, out of order or unsearchable,
 * or a check fails.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runSoak } from './soak-harness.ts'

const argv = process.argv.slice(2)
const arg = (name: string, fallback: number) => {
  const i = argv.indexOf(name)
  return i >= 0 ? Number(argv[i + 1]) : fallback
}
const dir = mkdtempSync(join(tmpdir(), 'engram-soak-'))
const started = Date.now()
try {
  const report = await runSoak({
    dir,
    writers: arg('--writers', 8),
    durationMs: arg('--minutes', 10) * 60_000,
    maxKillIntervalMs: arg('--kill-ms', 1000),
    progress: (line) => process.stderr.write(`${line}\n`),
  })
  console.log(JSON.stringify({ seconds: Math.round((Date.now() - started) / 1000), ...report }, null, 2))
  process.exitCode = report.problems.length === 0 ? 0 : 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
