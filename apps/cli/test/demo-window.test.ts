import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { engram, tempDir } from './helpers.ts'

const WINDOW = 6_000

describe('engram demo keeps the long session inside the window', () => {
  it('shows one [ctx] line per turn of part 3, every ratio under 1, and no main call over the window', async () => {
    const db = join(tempDir(), 'demo.db')
    const { code, stdout } = await engram(['demo', '--db', db])
    expect(code).toBe(0)
    const part3 = stdout.slice(stdout.indexOf('3. A long session'), stdout.indexOf('4. Usage'))
    const turns = [
      ...part3.matchAll(/\[ctx\] turn (\d+): sent ([\d,]+) of ([\d,]+) tokens \(ratio (\d+\.\d\d)\)/g),
    ]
    expect(turns.map((m) => Number(m[1]))).toEqual([1, 2, 3, 4, 5, 6, 7])
    for (const [line, , sent, window, ratio] of turns) {
      expect(Number(window?.replace(/,/g, '')), line).toBe(WINDOW)
      expect(Number(ratio), line).toBeLessThan(1)
      expect(Number(sent?.replace(/,/g, '')), line).toBeLessThan(WINDOW)
    }
    expect(part3).toMatch(/compressed into a child session/)

    const file = new Database(db, { readonly: true })
    try {
      const sessions = file
        .prepare("SELECT id FROM sessions WHERE source = 'demo' ORDER BY started_at, rowid")
        .all() as { id: string }[]
      // Parts 1 and 2 run at the default window; part 3 (window 6,000) is every session after them.
      const part3Sessions = sessions.slice(2).map((s) => s.id)
      expect(part3Sessions.length).toBeGreaterThanOrEqual(2)
      const inputs = file
        .prepare(
          `SELECT input_tokens FROM model_calls WHERE purpose = 'main' AND session_id IN (${part3Sessions.map(() => '?').join(',')}) ORDER BY id`,
        )
        .all(...part3Sessions) as { input_tokens: number }[]
      expect(inputs).toHaveLength(7)
      for (const { input_tokens } of inputs) expect(input_tokens).toBeLessThanOrEqual(WINDOW)
    } finally {
      file.close()
    }
  })
})
