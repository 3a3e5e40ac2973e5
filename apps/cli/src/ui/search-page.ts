import type { Role, Store } from '@engram/core'
import { html } from 'hono/html'
import { formatTime, type Html, highlighted, page, pager, sessionHref, shortId, withQuery } from './html.ts'

const ROLES: Role[] = ['user', 'assistant', 'tool', 'system']
const PAGE = 20
/** Deep relevance pages cost more and help nobody: 50 pages of 20 is as far as the page goes. */
const MAX_PAGE = 49

/** The same ranked search the agent's tool runs (CJK included), with highlighted snippets and paging. */
export async function searchPage(
  store: Store,
  query: { q?: string; role?: string; page?: string },
): Promise<Html> {
  const q = (query.q ?? '').trim()
  const role = ROLES.find((r) => r === query.role)
  const form = html`<form class="filters" method="get" action="search">
    <label>query <input name="q" value="${q}" size="50" autofocus></label>
    <label>role <select name="role"><option value="">any</option>${ROLES.map(
      (r) => html`<option value="${r}" ${r === role ? 'selected' : ''}>${r}</option>`,
    )}</select></label>
    <button>Search</button></form>`
  if (q === '') return page('Search', 'search', html`${form}<p class="muted">Any text is a valid query.</p>`)
  // Relevance order has no stable keyset, so pages go by offset; one extra row says whether there is a next.
  const pageNo = Math.min(Math.max(Number.parseInt(query.page ?? '0', 10) || 0, 0), MAX_PAGE)
  const found = await store.search(q, { role, limit: PAGE + 1, offset: pageNo * PAGE })
  const next = found.length > PAGE && pageNo < MAX_PAGE ? String(pageNo + 1) : null
  const hits = found.slice(0, PAGE).map((hit) => {
    const anchor =
      hit.kind === 'message'
        ? `${sessionHref(hit.sessionId, '', { from: String(hit.messageId) })}#m${hit.messageId}`
        : `${sessionHref(hit.sessionId)}#episodes`
    return html`<tr><td><a href="${anchor}"><code>${shortId(hit.sessionId)}</code></a></td>
      <td>${hit.kind === 'episode' ? html`<strong>summary</strong>` : hit.role}</td><td>${hit.source}</td>
      <td>${formatTime(hit.timestamp)}</td><td>${highlighted(hit.snippet)}</td></tr>`
  })
  return page(
    'Search',
    'search',
    html`${form}${
      hits.length === 0
        ? html`<p class="muted">Nothing matches “${q}”.</p>`
        : html`<table><thead><tr><th>session</th><th>role</th><th>source</th><th>time (UTC)</th><th>snippet</th></tr></thead><tbody>${hits}</tbody></table>`
    }${pager(next, (page) => withQuery('search', { q, role, page }))}`,
  )
}
