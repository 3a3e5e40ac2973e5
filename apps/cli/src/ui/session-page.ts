import { isSummaryMessage } from '@engram/compressor'
import type { Episode, Session, Store, StoredMessage } from '@engram/core'
import { html } from 'hono/html'
import { formatCost, formatInt, formatTime, type Html, page, pager, shortId, withQuery } from './html.ts'

/** What the session page needs beyond the store: how to write the command that resumes the chain's tip. */
export interface SessionPageContext {
  store: Store
  /** `engram chat …` arguments that select this database (e.g. `--db /abs/path.db`). */
  dbArgs: string
}

const text = (content: StoredMessage['content']): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n')
      : ''

/** Messages longer than this show a preview and fold the rest, so a pasted log does not fill the page. */
const LONG = 1_200
const PREVIEW = 600

/** The first line of a text, cut to `max` characters, for a folded block's summary line. */
const firstLine = (value: string, max = 120): string => {
  const line = value.split('\n', 1)[0] ?? ''
  return line.length > max ? `${line.slice(0, max)}…` : line
}

function message(m: StoredMessage): Html {
  const body = text(m.content)
  const summary = isSummaryMessage(m)
  const calls =
    m.role === 'assistant' && m.tool_calls?.length
      ? m.tool_calls.map(
          (call) =>
            html`<details><summary>→ <code>${call.function.name}</code> <span class="muted">${firstLine(call.function.arguments, 100)}</span></summary><pre>${call.function.arguments}</pre></details>`,
        )
      : ''
  const content =
    m.role === 'tool'
      ? html`<details><summary>result of <code>${m.tool_call_id}</code> <span class="muted">${firstLine(body)}</span> (${formatInt(body.length)} chars)</summary><pre>${body}</pre></details>`
      : body.length > LONG
        ? html`<pre>${body.slice(0, PREVIEW)}…</pre><details><summary>show all ${formatInt(body.length)} characters</summary><pre>${body}</pre></details>`
        : body
          ? html`<pre>${body}</pre>`
          : ''
  return html`<div class="msg ${m.role} ${summary ? 'summary' : ''}" id="m${m.id}">
    <span class="role">${summary ? 'compression summary' : m.role}</span>
    <a class="muted" href="#m${m.id}">#${m.id}</a> <span class="muted">${formatTime(m.timestamp)}${m.tokenCount == null ? '' : ` · ${formatInt(m.tokenCount)} tokens`}</span>
    ${content}${calls}</div>`
}

function chain(lineage: Session[], here: string): Html {
  return html`<div class="chain">${lineage.map(
    (s, i) =>
      html`${i > 0 ? html`<span class="muted">→</span>` : ''}<a class="node ${s.id === here ? 'here' : ''}" href="/sessions/${s.id}"><code>${shortId(s.id)}</code> <span class="muted">${formatInt(s.messageCount)} msgs${s.endReason ? ` · ${s.endReason}` : ''}</span></a>`,
  )}</div>`
}

function episodeRow(e: Episode): Html {
  const range =
    e.firstMessageId != null
      ? html`<a href="/sessions/${e.sessionId}?from=${e.firstMessageId}#m${e.firstMessageId}">messages #${e.firstMessageId}–#${e.lastMessageId ?? '?'}</a>`
      : html`<span class="muted">no message range</span>`
  return html`<tr><td>${range}</td><td class="n">${e.importance}</td><td class="n">${formatInt(e.tokenCount)}</td><td class="n">${e.hitCount}</td><td><pre>${e.summary}</pre></td></tr>`
}

/**
 * One session: its lineage drawn as a chain (root → tip), the summaries that joined it to its child with
 * links to the messages they replaced, the transcript one page at a time (tool calls and results folded,
 * compression summaries marked) and the command that resumes the chain's tip.
 */
export async function sessionPage(
  ctx: SessionPageContext,
  id: string,
  query: { cursor?: string; from?: string },
): Promise<Html | null> {
  const { store } = ctx
  const session = await store.getSession(id)
  if (!session) return null
  const tip = await store.resolveTip(id)
  const [lineage, episodes] = await Promise.all([store.getLineage(tip), store.getEpisodes(id)])
  const fromId = Number.parseInt(query.from ?? '', 10)
  const transcript = await store.getStoredMessagesPage(id, {
    limit: 100,
    ...(query.cursor
      ? { cursor: query.cursor }
      : Number.isSafeInteger(fromId) && fromId > 0
        ? { fromId }
        : {}),
  })
  const child = lineage[lineage.findIndex((s) => s.id === id) + 1]
  const resume = `engram chat ${ctx.dbArgs} --source ${session.source} --resume ${tip}`
  return page(
    `Session ${shortId(id)}`,
    '/',
    html`<p>${session.title ?? ''} <span class="muted">${session.source}${session.userId ? ` · user ${session.userId}` : ''} · ${session.model ?? 'no model'} ·
      started ${formatTime(session.startedAt)}${session.endedAt ? ` · ended ${formatTime(session.endedAt)} (${session.endReason ?? ''})` : ''} ·
      ${formatInt(session.messageCount)} messages · ${formatInt(session.inputTokens)} / ${formatInt(session.outputTokens)} tokens · ${formatCost(session.costUsd)}</span></p>
    <p><a href="/sessions/${id}/context">What the model sees →</a> · <a href="/usage?session=${id}">Tokens and cost →</a></p>
    <h2>Lineage</h2>${chain(lineage, id)}
    <p>Resume the tip: <code>${resume}</code> <button data-copy="${resume}">Copy</button></p>
    ${
      episodes.length
        ? html`<h2 id="episodes">Summaries of this session</h2><table><thead><tr><th>replaces</th><th class="n">importance</th><th class="n">tokens</th><th class="n">hits</th><th>summary</th></tr></thead><tbody>${episodes.map(episodeRow)}</tbody></table>`
        : ''
    }
    <h2>Transcript</h2>
    ${transcript.items.length === 0 ? html`<p class="muted">No messages${query.cursor || query.from ? ' after this point' : ''}.</p>` : transcript.items.map(message)}
    ${
      transcript.nextCursor === null && child
        ? html`<div class="mark">Compressed here: the conversation continues in <a href="/sessions/${child.id}"><code>${shortId(child.id)}</code></a>, which starts with the summary.</div>`
        : ''
    }
    ${pager(transcript.nextCursor, (cursor) => withQuery(`/sessions/${id}`, { cursor }))}`,
  )
}
