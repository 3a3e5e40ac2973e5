/** Small statistics and formatting helpers for the scale benchmark. */

export const median = (xs: readonly number[]): number => percentile(xs, 50)

/** Nearest-rank percentile (NaN for an empty list). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number
}

export const fmt = (x: number, digits = 0): string =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—'

/** `list` rotated left by `by`, so interleaved variants take turns at going first. */
export const rotate = <T>(list: readonly T[], by: number): T[] =>
  list.map((_, i) => list[(i + by) % list.length] as T)

export const log = (s: string): void => void process.stderr.write(`${s}\n`)

/** A table of rows (first row = header) as aligned text; numbers are right-aligned. */
export function table(title: string, rows: readonly (readonly string[])[]): string {
  const widths: number[] = []
  for (const row of rows)
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length)
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
  const [head, ...body] = rows
  return [`\n${title}`, `  ${line(head ?? [])}`, ...body.map((r) => `  ${line(r)}`)].join('\n')
}
