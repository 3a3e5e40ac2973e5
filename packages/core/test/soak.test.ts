import { describe, expect, it } from 'vitest'
import { tempDir } from './helpers.ts'
import { runSoak } from './soak-harness.ts'

// The short soak of `pnpm check`; `pnpm soak` runs the long one (see soak-run.ts).
describe('soak: 8 writers killed at random, a reader, pruning and index rebuilds (better-sqlite3)', () => {
  it('keeps every acknowledged message exactly once and in order, findable by its token, with a sound file', async () => {
    const report = await runSoak({
      dir: tempDir('engram-soak-'),
      writers: 8,
      durationMs: 12_000,
      minimum: { acknowledged: 250, kills: 8 },
      maxKillIntervalMs: 600,
    })
    console.log(
      `soak: ${report.acknowledged} acknowledged (+${report.unacknowledged} committed unacknowledged), ${report.kills} kills, ${report.reader.searches} searches, ${report.maintenance.pruned} sessions pruned, ${report.maintenance.rebuilds} index rebuilds`,
    )
    expect(report.problems).toEqual([])
    expect(report.kills).toBeGreaterThan(5)
    expect(report.acknowledged).toBeGreaterThan(200)
    expect(report.tokensFound).toBe(report.acknowledged)
    expect(report.reader.searches).toBeGreaterThan(0)
    expect(report.maintenance.rebuilds).toBeGreaterThan(0)
    expect(report.maintenance.pruned).toBeGreaterThan(0)
    expect(report.integrity.ok).toBe(true)
  })
})
