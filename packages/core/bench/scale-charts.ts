/**
 * Hand-rolled SVG line charts for the scale benchmark: one or more series of (x, y) points, optional
 * logarithmic x axis, ticks, grid, a legend and a <title> for screen readers. No dependency; the output is a standalone .svg file.
 */

interface Series {
  name: string
  points: readonly (readonly [number, number])[]
  /** Draw dashed (for floors and targets). */
  dashed?: boolean
}

export interface ChartSpec {
  title: string
  xLabel: string
  yLabel: string
  series: readonly Series[]
  logX?: boolean
  /** A horizontal target line. */
  target?: { y: number; label: string }
}

const W = 640
const H = 400
const M = { left: 70, right: 20, top: 40, bottom: 90 }
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b']

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function niceStep(span: number, count: number): number {
  const raw = span / count
  const mag = 10 ** Math.floor(Math.log10(raw))
  const norm = raw / mag
  return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag
}

const label = (v: number) =>
  Math.abs(v) >= 1e6 ? `${v / 1e6}M` : Math.abs(v) >= 1e3 ? `${v / 1e3}k` : `${Number(v.toPrecision(3))}`

/** The chart as SVG text. */
export function lineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points)
  const xs = all.map((p) => p[0])
  const ys = [...all.map((p) => p[1]), ...(spec.target ? [spec.target.y] : [])]
  const tx = (x: number) => (spec.logX ? Math.log10(x) : x)
  const x0 = tx(Math.min(...xs))
  const x1 = Math.max(tx(Math.max(...xs)), x0 + 1e-9)
  const yStep = niceStep(Math.max(...ys, 1e-9), 5)
  const y1 = Math.ceil((Math.max(...ys) * 1.05) / yStep) * yStep || yStep
  const px = (x: number) => M.left + ((tx(x) - x0) / (x1 - x0)) * (W - M.left - M.right)
  const py = (y: number) => H - M.bottom - (y / y1) * (H - M.top - M.bottom)
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(spec.title)}</title>`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(spec.title)}</text>`,
  ]
  for (let y = 0; y <= y1 + 1e-9; y += yStep) {
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`,
      `<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${label(y)}</text>`,
    )
  }
  const xTicks = spec.logX
    ? Array.from({ length: Math.floor(x1) - Math.ceil(x0) + 1 }, (_, i) => 10 ** (Math.ceil(x0) + i))
    : [...new Set(xs)].sort((a, b) => a - b)
  for (const x of xTicks) {
    out.push(
      `<line x1="${px(x)}" x2="${px(x)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eee"/>`,
      `<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${label(x)}</text>`,
    )
  }
  out.push(
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="black"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="black"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - M.bottom + 34}" text-anchor="middle">${esc(spec.xLabel)}</text>`,
    `<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  )
  if (spec.target) {
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(spec.target.y)}" y2="${py(spec.target.y)}" stroke="#888" stroke-dasharray="2 4"/>`,
      `<text x="${W - M.right - 4}" y="${py(spec.target.y) - 4}" text-anchor="end" fill="#555">${esc(spec.target.label)}</text>`,
    )
  }
  spec.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]
    const pts = [...s.points].sort((a, b) => a[0] - b[0])
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''} points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`,
      ...pts.map(
        ([x, y]) => `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`,
      ),
    )
    const lx = M.left + (i % 2) * 280
    const ly = H - 30 + Math.floor(i / 2) * 16 - 8 * Math.floor((spec.series.length - 1) / 2)
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${lx + 30}" y="${ly}">${esc(s.name)}</text>`,
    )
  })
  out.push('</svg>')
  return `${out.join('\n')}\n`
}
