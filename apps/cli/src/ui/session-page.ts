import { maskUrl } from '@engram/agent'
import { isSummaryMessage } from '@engram/compressor'
import type { Episode, Session, Store, StoredMessage, ToolCall } from '@engram/core'
import { html } from 'hono/html'
import { DATABASE_VARIABLE, databaseWords, pastable, shellWord } from '../output.ts'
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

/** What the session page needs beyond the store: the database the command that resumes the tip names. */
export interface SessionPageContext {
  store: Store
  /** The database's path or url, as `--db` takes it (a url with a secret is shown masked, never printed). */
  database: string
}

/** Messages on one page of the transcript. */
const PAGE = 100
/**
 * Messages read from the store at once: each batch is rendered (clipped) before the next is read, so the
 * server holds at most this many whole messages, not the page's hundred.
 */
const BATCH = 10
/**
 * Characters of a message (or of a tool call's arguments) shown on the page; the rest is one link away.
 * With PAGE messages a page stays under a few hundred KB, whatever the session holds.
 */
const PREVIEW = 1_200

export const messageText = (content: StoredMessage['content']): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n')
      : ''

/** The page's link to one message's full text (or its tool calls' JSON). */
const fullTextHref = (m: StoredMessage, part?: 'tool_calls'): string =>
  sessionHref(m.sessionId, `/messages/${m.id}`, { part })

/** A text as `<pre>`, clipped to PREVIEW characters with a link to all of it. */
function clipped(value: string, href: string): Html {
  return value.length > PREVIEW
    ? html`<pre>${clip(value, PREVIEW)}</pre><a href="${href}" target="_blank">all ${formatInt(value.length)} characters →</a>`
    : html`<pre>${value}</pre>`
}

function call(m: StoredMessage, c: ToolCall): Html {
  const args = c.function.arguments
  return html`<details><summary>→ <code>${clip(c.function.name, 100)}</code> <span class="muted">${clip(args.split('\n', 1)[0] ?? '', 100)}</span></summary>${clipped(args, fullTextHref(m, 'tool_calls'))}</details>`
}

function message(m: StoredMessage): Html {
  const body = messageText(m.content)
  const summary = isSummaryMessage(m)
  const calls = m.role === 'assistant' && m.tool_calls?.length ? m.tool_calls.map((c) => call(m, c)) : ''
  const content =
    m.role === 'tool'
      ? html`<details><summary>result of <code>${clip(m.tool_call_id ?? '', 100)}</code> <span class="muted">${clip(body.split('\n', 1)[0] ?? '', 120)}</span> (${formatInt(body.length)} chars)</summary>${clipped(body, fullTextHref(m))}</details>`
      : body
        ? clipped(body, fullTextHref(m))
        : ''
  return html`<div class="msg ${m.role} ${summary ? 'summary' : ''}" id="m${m.id}">
    <span class="role">${summary ? 'compression summary' : m.role}</span>
    <a class="muted" href="${sessionHref(m.sessionId, '', { from: String(m.id) })}#m${m.id}">#${m.id}</a> <span class="muted">${formatTime(m.timestamp)}${m.tokenCount == null ? '' : ` · ${formatInt(m.tokenCount)} tokens`}</span>
    ${content}${calls}</div>`
}

function chain(lineage: Session[], here: string): Html {
  return html`<div class="chain">${lineage.map(
    (s, i) =>
      html`${i > 0 ? html`<span class="muted">→</span>` : ''}<a class="node ${s.id === here ? 'here' : ''}" href="${sessionHref(s.id)}"><code>${shortId(s.id)}</code> <span class="muted">${formatInt(s.messageCount)} msgs${s.endReason ? ` · ${clip(s.endReason, 40)}` : ''}</span></a>`,
  )}</div>`
}

function episodeRow(e: Episode): Html {
  const range =
    e.firstMessageId != null
      ? html`<a href="${sessionHref(e.sessionId, '', { from: String(e.firstMessageId) })}#m${e.firstMessageId}">messages #${e.firstMessageId}–#${e.lastMessageId ?? '?'}</a>`
      : html`<span class="muted">no message range</span>`
  return html`<tr><td>${range}</td><td class="n">${e.importance}</td><td class="n">${formatInt(e.tokenCount)}</td><td class="n">${e.hitCount}</td><td><pre>${clip(e.summary, PREVIEW * 4)}</pre></td></tr>`
}

/** `--name value` as shell words, or `--name=value` when the value starts with a dash (not an option). */
const option = (name: string, value: string) =>
  value.startsWith('-') ? shellWord(`${name}=${value}`) : `${name} ${shellWord(value)}`

/**
 * The command that resumes `tip`, every value quoted for a POSIX shell (shellWord, as the CLI's own exit
 * line), the database as `"$ENGRAM_DB_URL"` when its url holds a secret. Null when a value cannot be pasted
 * into a terminal safely (a control or invisible character: see pastable).
 */
export function resumeCommand(database: string, source: string, tip: string): string | null {
  if (![database, source, tip].every(pastable)) return null
  return `engram chat ${databaseWords(database)} ${option('--source', source)} ${option('--resume', tip)}`
}

function resumeLine(database: string, session: Session, tip: string): Html {
  const command = resumeCommand(database, session.source, tip)
  if (command === null) {
    return html`<p class="muted">No command to resume the tip: its id, source or the database path holds a control or invisible character that a terminal would act on when pasted.</p>`
  }
  const masked = maskUrl(database)
  return html`<p>Resume the tip: <code>${command}</code> <button data-copy="${command}">Copy</button>${masked === database ? '' : html` <span class="muted">with <code>${DATABASE_VARIABLE}</code> set to <code>${masked}</code></span>`}</p>`
}

/** One page of the transcript, rendered BATCH messages at a time, and the cursor of the next page. */
async function renderedPage(
  store: Store,
  id: string,
  start: { cursor?: string; fromId?: number },
): Promise<{ items: Html[]; nextCursor: string | null }> {
  const items: Html[] = []
  let from = start
  let nextCursor: string | null = null
  while (items.length < PAGE) {
    const batch = await store.getStoredMessagesPage(id, { limit: BATCH, ...from })
    items.push(...batch.items.map(message))
    nextCursor = batch.nextCursor
    if (nextCursor === null) break
    from = { cursor: nextCursor }
  }
  return { items, nextCursor }
}

/**
 * One session: its lineage drawn as a chain (root → tip), the summaries that joined it to its child with
 * links to the messages they replaced, the transcript one page at a time (tool calls and results folded,
 * compression summaries marked, long texts clipped with a link to all of it) and the command that resumes
 * the chain's tip. `session` is the one the address named.
 */
export async function sessionPage(
  ctx: SessionPageContext,
  session: Session,
  query: { cursor?: string; from?: string },
): Promise<Html> {
  const { store } = ctx
  const id = session.id
  const tip = await store.resolveTip(id)
  const [lineage, episodes] = await Promise.all([store.getLineage(tip), store.getEpisodes(id)])
  const fromId = Number.parseInt(query.from ?? '', 10)
  const transcript = await renderedPage(
    store,
    id,
    query.cursor ? { cursor: query.cursor } : Number.isSafeInteger(fromId) && fromId > 0 ? { fromId } : {},
  )
  const child = lineage[lineage.findIndex((s) => s.id === id) + 1]
  return page(
    `Session ${shortId(id)}`,
    './',
    html`<p>${clip(session.title ?? '', 200)} <span class="muted">${session.source}${session.userId ? ` · user ${session.userId}` : ''} · ${session.model ?? 'no model'} ·
      started ${formatTime(session.startedAt)}${session.endedAt ? ` · ended ${formatTime(session.endedAt)} (${session.endReason ?? ''})` : ''} ·
      ${formatInt(session.messageCount)} messages · ${formatInt(session.inputTokens)} / ${formatInt(session.outputTokens)} tokens · ${formatCost(session.costUsd)}</span></p>
    <p><a href="${sessionHref(id, '/context')}">What the model sees →</a> · <a href="${withQuery('usage', { session: id })}">Tokens and cost →</a></p>
    <h2>Lineage</h2>${chain(lineage, id)}
    ${resumeLine(ctx.database, session, tip)}
    ${
      episodes.length
        ? html`<h2 id="episodes">Summaries of this session</h2><table><thead><tr><th>replaces</th><th class="n">importance</th><th class="n">tokens</th><th class="n">hits</th><th>summary</th></tr></thead><tbody>${episodes.map(episodeRow)}</tbody></table>`
        : ''
    }
    <h2>Transcript</h2>
    ${transcript.items.length === 0 ? html`<p class="muted">No messages${query.cursor || query.from ? ' after this point' : ''}.</p>` : transcript.items}
    ${
      transcript.nextCursor === null && child
        ? html`<div class="mark">Compressed here: the conversation continues in <a href="${sessionHref(child.id)}"><code>${shortId(child.id)}</code></a>, which starts with the summary.</div>`
        : ''
    }
    ${pager(transcript.nextCursor, (cursor) => sessionHref(id, '', { cursor }))}`,
  )
}

/** One message's full text (or its tool calls' JSON), as plain text; null when the session has no such message. */
export async function fullText(
  store: Store,
  session: Session,
  messageId: number,
  part: string | undefined,
): Promise<string | null> {
  const [m] = await store.readAround(messageId, { before: 0, after: 0 })
  if (!m || m.sessionId !== session.id) return null
  return part === 'tool_calls' ? JSON.stringify(m.tool_calls ?? [], null, 2) : messageText(m.content)
}
