/**
 * Work and time of the memory file paths on large inputs: grapheme counting, loading a MEMORY.md into a
 * snapshot, refusing an oversized write, and the threat scan. Prints, per size, the characters handed to
 * the segmenter or visited by the scanner, the wall time, and the ratios to the smallest size (linear:
 * both ratios follow the size ratio).
 *
 *   npx tsx --conditions=engram-source packages/agent/bench/memory.bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_COMPACT_TRIGGER_RATIO, MemoryFiles, MemoryRefusal, scanForThreats } from '../src/index.ts'
import { countChars } from '../src/memory/format.ts'

const SIZES = [25_000, 50_000, 100_000, 1_000_000]
const text = (size: number) =>
  'The user likes 👍🏽 and 用户喜欢简洁的回答 e\u0301 '.repeat(size / 30 + 1).slice(0, size)

interface Row {
  size: number
  work: number
  ms: number
}

async function measure(name: string, run: (size: number) => Promise<number> | number): Promise<void> {
  const rows: Row[] = []
  for (const size of SIZES) {
    const start = performance.now()
    const work = await run(size)
    rows.push({ size, work, ms: performance.now() - start })
  }
  const [base] = rows as [Row]
  console.log(`\n${name}`)
  for (const row of rows) {
    console.log(
      `  ${String(row.size).padStart(9)} chars  work ${String(row.work).padStart(9)} (×${(row.work / Math.max(base.work, 1)).toFixed(1)})  ${row.ms.toFixed(0).padStart(6)} ms (×${(row.ms / Math.max(base.ms, 1)).toFixed(1)})  size ×${(row.size / base.size).toFixed(0)}`,
    )
  }
}

const dir = mkdtempSync(join(tmpdir(), 'engram-memory-bench-'))
const config = (name: string) => {
  const folder = join(dir, name)
  mkdirSync(folder, { recursive: true })
  return {
    memoryPath: join(folder, 'MEMORY.md'),
    userPath: join(folder, 'USER.md'),
    memoryCharLimit: 2_200,
    userCharLimit: 1_375,
    compactTriggerRatio: DEFAULT_COMPACT_TRIGGER_RATIO,
  }
}

try {
  await measure('countChars (work: characters handed to the segmenter)', (size) => {
    const meter = { chars: 0, calls: 0 }
    countChars(text(size), { meter })
    return meter.chars
  })
  await measure('countChars of emoji only (work: characters handed to the segmenter)', (size) => {
    const meter = { chars: 0, calls: 0 }
    countChars('👨‍👩‍👧'.repeat(size / 8), { meter })
    return meter.chars
  })
  await measure('snapshot() of an oversized MEMORY.md (work: file size)', async (size) => {
    const files = config(`file-${size}`)
    writeFileSync(files.memoryPath, `${text(size)}\n`)
    await new MemoryFiles(files).snapshot()
    return size
  })
  await measure('apply() adding to an oversized MEMORY.md, refused (work: file size)', async (size) => {
    const files = config(`file-${size}`)
    await new MemoryFiles(files).apply('memory', [{ action: 'add', content: 'one more' }]).catch((error) => {
      if (!(error instanceof MemoryRefusal)) throw error
    })
    return size
  })
  await measure(
    'apply() of oversized content, refused (work: characters counted before refusing)',
    async (size) => {
      const files = config(`content-${size}`)
      const meter = { chars: 0, calls: 0 }
      countChars(text(size), { meter, max: files.memoryCharLimit })
      await new MemoryFiles(files)
        .apply('memory', [{ action: 'add', content: text(size) }])
        .catch((error) => {
          if (!(error instanceof MemoryRefusal)) throw error
        })
      return meter.chars
    },
  )
  await measure('scanForThreats (work: characters visited by the rules)', (size) => {
    const meter = { chars: 0 }
    scanForThreats(text(size), meter)
    return meter.chars
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
