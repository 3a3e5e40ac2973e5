/**
 * Times the scanner on typical 2 KB entries (built from the writers' innocent notes, the kind of text a
 * memory file holds) against a floor measured in the same run on the same texts: one case-insensitive
 * regex pass and a lower-case + split. Prints ms per entry and the ratio to the floor.
 *
 *   pnpm tsx --conditions=engram-source packages/agent/scanner/bench.ts [rounds]
 */

import { scanForThreats } from '../src/security/threats.ts'
import { writerCorpora } from './corpus.ts'

const ENTRY_BYTES = 2_048

/** Innocent notes of every writer, joined by blank lines into entries of about 2 KB (UTF-8). */
function typicalEntries(): string[] {
  const notes = [...writerCorpora().values()].flat().filter((entry) => !entry.hostile)
  const entries: string[] = []
  let current = ''
  for (const note of notes) {
    current = current ? `${current}\n\n${note.text}` : note.text
    if (Buffer.byteLength(current) >= ENTRY_BYTES) {
      entries.push(current)
      current = ''
    }
  }
  return entries
}

/** CPU time of this process in ms (on a shared machine it counts less of the other processes' load than wall time). */
const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

function timePerEntry(entries: string[], rounds: number, run: (text: string) => unknown): number {
  let sink = 0
  const start = cpuMs()
  for (let round = 0; round < rounds; round++) {
    for (const text of entries) sink += run(text) ? 1 : 0
  }
  const elapsed = cpuMs() - start
  if (sink < 0) console.log(sink)
  return elapsed / (rounds * entries.length)
}

const FLOOR_PATTERN = /ignore|instructions|system|password|curl|send/i
const floor = (text: string) => FLOOR_PATTERN.test(text) || text.toLowerCase().split(/\s+/).length > 0

const rounds = Number(process.argv[2] ?? '') || 20
const entries = typicalEntries()
const refused = entries.filter((text) => !scanForThreats(text).ok).length
// Warm up both, then alternate so load on the machine falls on both alike.
timePerEntry(entries, 2, (text) => scanForThreats(text).ok)
timePerEntry(entries, 2, floor)
const scans: number[] = []
const floors: number[] = []
for (let i = 0; i < 7; i++) {
  scans.push(timePerEntry(entries, rounds, (text) => scanForThreats(text).ok))
  floors.push(timePerEntry(entries, rounds, floor))
}
const sorted = (values: number[]) => values.toSorted((a, b) => a - b)
const bytes = entries.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / entries.length
console.log(
  `${entries.length} entries of ${Math.round(bytes)} B on average (${refused} refused), CPU time, 7 runs of ${rounds} rounds`,
)
for (const [name, pick] of [
  ['fastest run', (values: number[]) => sorted(values)[0] as number],
  ['median run', (values: number[]) => sorted(values)[3] as number],
] as const) {
  const scan = pick(scans)
  const base = pick(floors)
  console.log(
    `${name}: scanner ${scan.toFixed(3)} ms/entry; floor (one regex + lower-case + split) ${base.toFixed(4)} ms/entry; ratio ${(scan / base).toFixed(0)}×`,
  )
}

// Linear in practice, not only in the counted work: CPU time per KB on 64 KB and on 1 MB of near matches.
const NEAR_MATCHES: Record<string, (chars: number) => string> = {
  'ignore all the …': (n) => 'ignore all the '.repeat(n / 15),
  'e-mail near misses': (n) => 'a.b@c-d.'.repeat(n / 8),
  'base64-like run': (n) => 'QUJD'.repeat(n / 4),
  'Chinese cue prefixes': (n) => '忽略不要你现在'.repeat(n / 7),
}
for (const [name, build] of Object.entries(NEAR_MATCHES)) {
  const perKb = [64 * 1024, 1024 * 1024].map((size) => {
    const text = build(size)
    const start = cpuMs()
    scanForThreats(text)
    return (cpuMs() - start) / (text.length / 1024)
  })
  console.log(
    `${name}: ${(perKb[0] as number).toFixed(3)} ms/KB at 64 KB, ${(perKb[1] as number).toFixed(3)} ms/KB at 1 MB`,
  )
}
