import type { DailyUsage, Store, UsageReport } from '@engram/core'
import { html } from 'hono/html'
import {
  formatCost,
  formatInt,
  type Html,
  page,
  purposeColor,
  sessionHref,
  shortId,
  withQuery,
} from './html.ts'

/** The health rule of the Hermes design: auxiliary work (compression, nudge, search…) ≤ 20% of main. */
const AUX_RULE = 0.2
const DAYS = 30
const DAY_MS = 86_400_000

/** One labelled row of the chart: tokens by purpose. */
interface ChartRow {
  label: Html | string
  byPurpose: Map<string, number>
}

const tokensOf = (t: { inputTokens: number; outputTokens: number }) => t.inputTokens + t.outputTokens

const HEAD = html`<thead><tr><th></th><th>tokens (input + output)</th><th class="n">main</th><th class="n">auxiliary</th><th class="n">aux / main</th></tr></thead>`

/**
 * Rows of two bars each, drawn to one scale: main, then the auxiliary purposes stacked, with a dashed tick
 * where 20% of main falls on the auxiliary bar (auxiliary past the tick breaks the rule).
 */
function chart(rows: ChartRow[]): Html {
  const max = Math.max(1, ...rows.map((r) => Math.max(r.byPurpose.get('main') ?? 0, aux(r))))
  const width = 520
  const scale = (n: number) => (n / max) * width
  return html`<table class="chart">${HEAD}<tbody>${rows.map((r) => {
    const main = r.byPurpose.get('main') ?? 0
    let x = 0
    const auxBars = [...r.byPurpose]
      .filter(([p]) => p !== 'main')
      .map(([purpose, n]) => {
        const bar = html`<rect x="${x.toFixed(1)}" y="13" width="${scale(n).toFixed(1)}" height="9" fill="${purposeColor(purpose)}"><title>${purpose}: ${formatInt(n)}</title></rect>`
        x += scale(n)
        return bar
      })
    const ratio = main > 0 ? aux(r) / main : null
    return html`<tr><td>${r.label}</td><td><svg width="${width + 4}" height="24" role="img" aria-label="tokens by purpose">
      <rect x="0" y="2" width="${scale(main).toFixed(1)}" height="9" fill="${purposeColor('main')}"><title>main: ${formatInt(main)}</title></rect>
      ${auxBars}
      ${main > 0 ? html`<line class="rule" x1="${scale(main * AUX_RULE).toFixed(1)}" x2="${scale(main * AUX_RULE).toFixed(1)}" y1="11" y2="24" stroke="var(--warn)" stroke-dasharray="2,2"><title>20% of main</title></line>` : ''}
    </svg></td><td class="n">${formatInt(main)}</td><td class="n">${formatInt(aux(r))}</td>
    <td class="n ${ratio !== null && ratio > AUX_RULE ? 'blocked' : ''}">${ratio === null ? '—' : `${(ratio * 100).toFixed(1)}%`}</td></tr>`
  })}</tbody></table>`
}

const aux = (r: ChartRow) => [...r.byPurpose].reduce((sum, [p, n]) => (p === 'main' ? sum : sum + n), 0)

function dayRows(days: DailyUsage[]): ChartRow[] {
  const rows = new Map<string, ChartRow>()
  for (const d of days) {
    const row = rows.get(d.day) ?? { label: d.day, byPurpose: new Map() }
    row.byPurpose.set(d.purpose, (row.byPurpose.get(d.purpose) ?? 0) + tokensOf(d))
    rows.set(d.day, row)
  }
  return [...rows.values()]
}

const reportRow = (label: Html, report: UsageReport): ChartRow => ({
  label,
  byPurpose: new Map(Object.entries(report.byPurpose).map(([p, t]) => [p, tokensOf(t)])),
})

function legend(purposes: Iterable<string>): Html {
  return html`<p class="legend">${[...new Set(['main', ...purposes])].map((p) => html`<span><i class="sw" style="background:${purposeColor(p)}"></i>${p}</span>`)}
    <span><i class="sw" style="border-left:2px dashed var(--warn)"></i>20% of main (auxiliary should stay left of it)</span></p>`
}

/**
 * Tokens and cost by purpose: per day over the last 30 days and per recent session (or for one session),
 * with the auxiliary ≤ 20% of main rule drawn. Reads the store's grouped usage queries only.
 */
export async function usagePage(store: Store, query: { session?: string }, now = Date.now()): Promise<Html> {
  const sessionId = query.session || undefined
  const since = now - DAYS * DAY_MS
  const [days, total] = await Promise.all([
    store.dailyUsage({ sessionId, since }),
    store.usage(sessionId ? { sessionId } : {}),
  ])
  const main = tokensOf(total.byPurpose.main ?? { inputTokens: 0, outputTokens: 0 })
  const auxTotal = tokensOf(total.total) - main
  const ratio = main > 0 ? auxTotal / main : null
  const verdict =
    ratio === null
      ? html`<p class="muted">No main model calls recorded${sessionId ? ' for this session' : ''}.</p>`
      : html`<p class="${ratio > AUX_RULE ? 'blocked' : ''}"><strong>${ratio > AUX_RULE ? '✗' : '✓'} auxiliary tokens are ${(ratio * 100).toFixed(1)}% of main</strong> (rule: ≤ 20%) · main ${formatInt(main)} · auxiliary ${formatInt(auxTotal)} · ${formatInt(total.total.calls)} calls · cost ${formatCost(total.total.costUsd)}</p>`
  let perSession: Html | string = ''
  if (!sessionId) {
    const recent = await store.listSessions({ limit: 20 })
    const reports = await Promise.all(recent.map((s) => store.usage({ sessionId: s.id })))
    const rows = recent
      .map((s, i) =>
        reportRow(
          html`<a href="${withQuery('usage', { session: s.id })}"><code>${shortId(s.id)}</code></a> <span class="muted">${s.source}</span>`,
          reports[i] as UsageReport,
        ),
      )
      .filter((r) => r.byPurpose.size > 0)
    perSession = html`<h2>Per session (the 20 newest)</h2>${rows.length ? chart(rows) : html`<p class="muted">No usage recorded.</p>`}`
  }
  const byPurpose = Object.entries(total.byPurpose)
  return page(
    sessionId ? `Tokens and cost: ${shortId(sessionId)}` : 'Tokens and cost',
    'usage',
    html`${sessionId ? html`<p><a href="${sessionHref(sessionId)}">← the session</a> · <a href="usage">all sessions</a></p>` : ''}
    ${verdict}${legend(byPurpose.map(([p]) => p))}
    <table><thead><tr><th>purpose</th><th class="n">calls</th><th class="n">input</th><th class="n">output</th><th class="n">cache read</th><th class="n">cost</th></tr></thead><tbody>
    ${byPurpose.map(([p, t]) => html`<tr><td><i class="sw" style="background:${purposeColor(p)}"></i>${p}</td><td class="n">${formatInt(t.calls)}</td><td class="n">${formatInt(t.inputTokens)}</td><td class="n">${formatInt(t.outputTokens)}</td><td class="n">${formatInt(t.cacheReadTokens)}</td><td class="n">${formatCost(t.costUsd)}</td></tr>`)}
    </tbody></table>
    <h2>Per day (UTC, last ${DAYS} days)</h2>${days.length ? chart(dayRows(days)) : html`<p class="muted">No calls in the last ${DAYS} days.</p>`}
    ${perSession}`,
  )
}
