import type { Session, Store } from '@engram/core'
import { html } from 'hono/html'
import { formatCost, formatInt, formatTime, type Html, page, pager, shortId, withQuery } from './html.ts'

/** The filters of the sessions list, as the query string carries them. */
export interface SessionFilters {
  source?: string
  user?: string
  /** `YYYY-MM-DD`, UTC, inclusive. */
  from?: string
  /** `YYYY-MM-DD`, UTC, inclusive. */
  to?: string
  cursor?: string
}

const DAY_MS = 86_400_000

/** A `YYYY-MM-DD` field as ms since the epoch (UTC midnight), or undefined when empty or not a date. */
function dayStart(day: string | undefined): number | undefined {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined
  const at = Date.parse(`${day}T00:00:00Z`)
  return Number.isFinite(at) ? at : undefined
}

function row(session: Session): Html {
  return html`<tr>
    <td><a href="/sessions/${session.id}"><code>${shortId(session.id)}</code></a>${session.parentSessionId ? html` <span class="muted" title="continues ${session.parentSessionId}">↳</span>` : ''}
      ${session.title ? html`<div class="muted">${session.title}</div>` : ''}</td>
    <td>${session.source}</td><td>${session.userId ?? ''}</td><td>${session.model ?? ''}</td>
    <td>${formatTime(session.startedAt)}</td><td>${formatTime(session.endedAt)}${session.endReason ? html` <span class="muted">${session.endReason}</span>` : ''}</td>
    <td class="n">${formatInt(session.messageCount)}</td>
    <td class="n">${formatInt(session.inputTokens)} / ${formatInt(session.outputTokens)}</td>
    <td class="n">${formatCost(session.costUsd)}</td>
  </tr>`
}

/** Newest sessions first, one keyset page, filtered by source, user and start date in the store's query. */
export async function sessionsPage(store: Store, filters: SessionFilters): Promise<Html> {
  const to = dayStart(filters.to)
  const result = await store.listSessionsPage({
    source: filters.source || undefined,
    userId: filters.user || undefined,
    startedAfter: dayStart(filters.from),
    startedBefore: to === undefined ? undefined : to + DAY_MS,
    limit: 50,
    cursor: filters.cursor || undefined,
  })
  const keep = { source: filters.source, user: filters.user, from: filters.from, to: filters.to }
  return page(
    'Sessions',
    '/',
    html`<form class="filters" method="get" action="/">
      <label>source <input name="source" value="${filters.source ?? ''}" placeholder="cli, telegram…"></label>
      <label>user <input name="user" value="${filters.user ?? ''}"></label>
      <label>from <input type="date" name="from" value="${filters.from ?? ''}"></label>
      <label>to <input type="date" name="to" value="${filters.to ?? ''}"></label>
      <button>Filter</button> <a href="/">clear</a>
    </form>
    <form class="filters" method="get" action="/search"><label>search everything <input name="q" size="40" placeholder="部署 or deploy window"></label><button>Search</button></form>
    ${
      result.items.length === 0
        ? html`<p class="muted">No sessions match these filters.</p>`
        : html`<table><thead><tr><th>session</th><th>source</th><th>user</th><th>model</th><th>started (UTC)</th><th>ended</th>
          <th class="n">messages</th><th class="n">tokens in / out</th><th class="n">cost</th></tr></thead>
          <tbody>${result.items.map(row)}</tbody></table>`
    }
    ${pager(result.nextCursor, (cursor) => withQuery('/', { ...keep, cursor }))}`,
  )
}
