import { getContext } from 'hono/context-storage'
import { html, raw } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/** What a request of the page carries: the path the page lives under (see newBasePath). */
export interface UiEnv {
  Variables: { basePath: string }
}

/**
 * Fonts with Chinese, Japanese and Korean glyphs named after the platform's UI font, so CJK text never shows
 * as empty boxes where one of them is installed (Debian: fonts-noto-cjk; `engram doctor` warns without one).
 */
const CJK_FONTS = `"Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK KR", "Source Han Sans SC", "PingFang SC", "Hiragino Sans", "Microsoft YaHei", "Malgun Gothic", "WenQuanYi Zen Hei"`

/** The page's CSS, inline: the page works offline and loads nothing from elsewhere. */
const STYLE = `
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #fff; --muted: #6b7280; --line: #e5e7eb; --accent: #2563eb;
  --main: #2563eb; --compression: #d97706; --nudge: #059669; --search: #7c3aed; --other: #6b7280; --warn: #b91c1c; }
@media (prefers-color-scheme: dark) { :root { --fg: #e5e7eb; --bg: #111827; --muted: #9ca3af; --line: #374151; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", ${CJK_FONTS}, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
header { display: flex; gap: 1.2em; align-items: baseline; padding: .7em 1.2em; border-bottom: 1px solid var(--line); }
header strong { font-size: 1.1em; } header a { color: var(--fg); text-decoration: none; } header a.on { color: var(--accent); font-weight: 600; }
main { padding: 1em 1.2em; max-width: 1200px; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
a { color: var(--accent); } .muted { color: var(--muted); } code, pre { font: 12.5px ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", ${CJK_FONTS}, monospace; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2em 0; }
form.filters { display: flex; flex-wrap: wrap; gap: .6em; align-items: end; margin-bottom: 1em; }
form.filters label { display: flex; flex-direction: column; font-size: .85em; color: var(--muted); }
input, select, button, textarea { font: inherit; padding: .25em .4em; }
mark { background: #fde68a; color: #1d1f21; }
.msg { border-left: 3px solid var(--line); padding: .2em .8em; margin: .6em 0; }
.msg.user { border-color: var(--accent); } .msg.assistant { border-color: var(--nudge); } .msg.tool { border-color: var(--other); }
.msg.summary { border-color: var(--compression); background: color-mix(in srgb, var(--compression) 8%, transparent); }
.role { font-weight: 600; text-transform: uppercase; font-size: .75em; letter-spacing: .04em; color: var(--muted); }
.mark { border: 1px dashed var(--compression); padding: .4em .8em; margin: 1em 0; color: var(--compression); }
.chain { display: flex; flex-wrap: wrap; align-items: center; gap: .4em; margin: .6em 0; }
.chain .node { border: 1px solid var(--line); border-radius: 4px; padding: .2em .5em; } .chain .node.here { border-color: var(--accent); }
.bar { display: inline-block; height: .8em; vertical-align: middle; }
.blocked { color: var(--warn); } .pager { margin: 1em 0; display: flex; gap: 1em; }
.meter { background: var(--line); height: .7em; width: 16em; display: inline-block; vertical-align: middle; }
.meter > span { display: block; height: 100%; background: var(--accent); } .meter.full > span { background: var(--warn); }
.legend span { margin-right: 1em; } .sw { display: inline-block; width: .8em; height: .8em; margin-right: .3em; vertical-align: middle; }
`

/** The one client script: the copy button. Inline, a few lines, nothing else runs in the page. */
const SCRIPT = `document.addEventListener('click', (e) => {
  const b = e.target.closest('[data-copy]'); if (!b) return
  navigator.clipboard.writeText(b.dataset.copy).then(() => { b.textContent = 'Copied' })
})`

const NAV = [
  ['./', 'Sessions'],
  ['search', 'Search'],
  ['memory', 'Memory'],
  ['usage', 'Tokens and cost'],
] as const

/**
 * A whole page: the navigation bar, the title and the body. Links are relative to the page's base path (a
 * `<base>` element), so they are written without a leading slash: `sessions/…`, `search?q=…`.
 */
export function page(title: string, active: string, body: Html): Html {
  const base = getContext<UiEnv>().var.basePath
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<base href="${base}"><title>${title} · Engram</title><style>${raw(STYLE)}</style></head>
<body><header><strong>Engram</strong>${NAV.map(
    ([href, label]) => html`<a href="${href}" class="${href === active ? 'on' : ''}">${label}</a>`,
  )}</header>
<main><h1>${title}</h1>${body}</main><script>${raw(SCRIPT)}</script></body></html>`
}

/** A search snippet with its `«match»` marks as <mark>, everything else escaped. */
export function highlighted(snippet: string): Html {
  const parts = snippet.split(/«|»/)
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : html`${part}`))}`
}

export const formatInt = (n: number): string => Math.round(n).toLocaleString('en-US')
export const formatCost = (usd: number): string => (usd > 0 ? `$${usd.toFixed(usd < 0.01 ? 4 : 2)}` : '—')
export const formatTime = (at: number | null | undefined): string =>
  at == null ? '' : new Date(at).toISOString().replace('T', ' ').slice(0, 16)
export const shortId = (id: string): string => id.slice(0, 8)

/**
 * The link to a session's page, or to one of its sub-pages (`/context`, `/messages/7`), with the id encoded:
 * ids come from imports and SDKs and may hold `?`, `#`, `/` or `%`. An id of dots alone would be read as `.`
 * or `..` in a path, so it goes in the query instead (`session?id=..`).
 */
export function sessionHref(id: string, sub = '', query: Record<string, string | undefined> = {}): string {
  return /^\.+$/.test(id)
    ? withQuery(`session${sub}`, { id, ...query })
    : withQuery(`sessions/${encodeURIComponent(id)}${sub}`, query)
}

/** At most `max` characters of a text (a title, a preview), with … when cut. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value
  // Never between the halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max
  return `${value.slice(0, end)}…`
}

/** A link to the same page with some query parameters changed (undefined removes one). */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value)
  const text = params.toString()
  return text ? `${path}?${text}` : path
}

/** A "next page" link, or nothing on the last page. */
export function pager(next: string | null, href: (cursor: string) => string): Html {
  return html`<div class="pager">${next ? html`<a href="${href(next)}" rel="next">Next page →</a>` : html`<span class="muted">End of the list.</span>`}</div>`
}

/** The colour of a usage purpose (unknown purposes share one). */
export const purposeColor = (purpose: string): string =>
  ['main', 'compression', 'nudge', 'search'].includes(purpose) ? `var(--${purpose})` : 'var(--other)'

/** A usage meter: chars of limit, red above the ratio that asks for consolidation. */
export function meter(used: number, limit: number, full: number): Html {
  const ratio = limit > 0 ? used / limit : 0
  return html`<span class="meter ${ratio > full ? 'full' : ''}" title="${Math.round(ratio * 100)}%"><span style="width:${Math.min(100, ratio * 100).toFixed(1)}%"></span></span>
    <span class="muted">${Math.round(ratio * 100)}% — ${formatInt(used)}/${formatInt(limit)} chars</span>`
}
