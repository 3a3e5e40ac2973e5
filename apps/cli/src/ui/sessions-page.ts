import { EngramError, type Session, type Store } from '@engram/core'
import { html } from 'hono/html'
import {
  clip,
  formatCost,
  formatInt,
  formatTime,
  type Html,
  page,
  pager,
  sessionHref,
  shortId,
  withQuery,
} from './html.ts'
import { messageText } from './session-page.ts'

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

/**
 * A `YYYY-MM-DD` field as ms since the epoch (UTC midnight), undefined when empty; anything else is an
 * INVALID_ARGUMENT naming the field and the form it takes (the page answers 400 and says so).
 */
function dayStart(field: 'from' | 'to', day: string | undefined): number | undefined {
  if (!day) return undefined
  const at = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN
  // Date.parse rolls 2026-02-31 over to March: only a day that comes back as written is one.
  if (Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === day) return at
  throw new EngramError(
    'INVALID_ARGUMENT',
    `The "${field}" date ${JSON.stringify(clip(day, 40))} is not a day: write it as YYYY-MM-DD (for example 2026-12-01), or leave it empty.`,
  )
}

/** Characters of a session's title or first words in the list. */
const TITLE = 80

/** What the list calls a session: its title, or the first words of its first message with text. */
async function label(store: Store, session: Session): Promise<string> {
  if (session.title) return clip(session.title, TITLE)
  const { items } = await store.getStoredMessagesPage(session.id, { limit: 3 })
  const first = items.map((m) => messageText(m.content).trim()).find((text) => text !== '')
  return first ? clip(first.replace(/\s+/g, ' '), TITLE) : ''
}

function row(session: Session, title: string): Html {
  return html`<tr>
    <td><a href="${sessionHref(session.id)}"><code>${shortId(session.id)}</code></a>${session.parentSessionId ? html` <span class="muted" title="continues ${session.parentSessionId}">↳</span>` : ''}</td>
    <td>${title ? html`<a href="${sessionHref(session.id)}" class="title">${title}</a>` : html`<span class="muted">(no messages)</span>`}</td>
    <td>${session.source}</td><td>${session.userId ?? ''}</td><td>${session.model ?? ''}</td>
    <td>${formatTime(session.startedAt)}</td><td>${formatTime(session.endedAt)}${session.endReason ? html` <span class="muted">${session.endReason}</span>` : ''}</td>
    <td class="n">${formatInt(session.messageCount)}</td>
    <td class="n">${formatInt(session.inputTokens)} / ${formatInt(session.outputTokens)}</td>
    <td class="n">${formatCost(session.costUsd)}</td>
  </tr>`
}

/** Newest sessions first, one keyset page, filtered by source, user and start date in the store's query. */
export async function sessionsPage(store: Store, filters: SessionFilters): Promise<Html> {
  const from = dayStart('from', filters.from)
  const to = dayStart('to', filters.to)
  const result = await store.listSessionsPage({
    source: filters.source || undefined,
    userId: filters.user || undefined,
    startedAfter: from,
    startedBefore: to === undefined ? undefined : to + DAY_MS,
    limit: 50,
    cursor: filters.cursor || undefined,
  })
  const titles = await Promise.all(result.items.map((session) => label(store, session)))
  const keep = { source: filters.source, user: filters.user, from: filters.from, to: filters.to }
  return page(
    'Sessions',
    './',
    html`<form class="filters" method="get" action="./">
      <label>source <input name="source" value="${filters.source ?? ''}" placeholder="cli, telegram…"></label>
      <label>user <input name="user" value="${filters.user ?? ''}"></label>
      <label>from <input type="date" name="from" value="${filters.from ?? ''}"></label>
      <label>to <input type="date" name="to" value="${filters.to ?? ''}"></label>
      <button>Filter</button> <a href="./">clear</a>
    </form>
    <form class="filters" method="get" action="search"><label>search everything <input name="q" size="40" placeholder="部署 or deploy window"></label><button>Search</button></form>
    ${
      result.items.length === 0
        ? html`<p class="muted">No sessions match these filters.</p>`
        : html`<table><thead><tr><th>session</th><th>title or first words</th><th>source</th><th>user</th><th>model</th><th>started (UTC)</th><th>ended</th>
          <th class="n">messages</th><th class="n">tokens in / out</th><th class="n">cost</th></tr></thead>
          <tbody>${titles.map((title, i) => row(result.items[i] as Session, title))}</tbody></table>`
    }
    ${pager(result.nextCursor, (cursor) => withQuery('./', { ...keep, cursor }))}`,
  )
}
