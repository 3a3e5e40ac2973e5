import { type EngramConfig, splitSystemPrompt, type ToolSpec } from '@engram/agent'
import { bpeTokenCounter, countMessages, estimateTokenCounter, textOf } from '@engram/compressor'
import type { Session, Store } from '@engram/core'
import { html } from 'hono/html'
import { formatInt, type Html, page, sessionHref, shortId } from './html.ts'

/** One part of what the model is sent, with its size in tokens. */
interface Section {
  name: string
  tokens: number
  detail?: Html
}

/** The window and reply budget a session is measured against, and whether the session recorded them. */
interface Measure {
  window: number
  replyBudget: number
  /** True when the window is the one recorded with the session; false: this page's configuration. */
  recorded: boolean
}

/**
 * The session's recorded window and reply budget (what it ran with), each falling back to this page's
 * configuration where the session has none (sessions written before they recorded them, or by a tool that
 * does not).
 */
function measureOf(session: Session | null, config: EngramConfig): Measure {
  const settings = session?.modelConfig
  const main = config.models.main
  return {
    window: settings?.contextWindow ?? main.contextWindow,
    replyBudget: settings?.maxTokens ?? main.maxTokens,
    recorded: settings?.contextWindow !== undefined,
  }
}

/** Characters of message text up to which the page counts tokens exactly. */
const EXACT_COUNT_LIMIT = 400_000

/**
 * What the model sees for a session (the tip of its chain, where the next turn goes): the stored system
 * prompt with its frozen memory block, the tool schemas, and the context measured in tokens against the
 * window, section by section.
 */
export async function contextPage(
  store: Store,
  config: EngramConfig,
  tools: readonly ToolSpec[],
  session: Session,
): Promise<Html> {
  const id = session.id
  const tip = await store.resolveTip(id)
  const tipSession = tip === id ? session : await store.getSession(tip)
  const messages = await store.getMessages(tip)
  const prompt = tipSession?.systemPrompt ?? ''
  const measure = measureOf(tipSession, config)
  const { memory, instructions: rest } = splitSystemPrompt(prompt)
  // BPE-counting a huge uncompressed session would keep the page busy for seconds: past this much text the
  // messages are estimated (the page says so); the prompt and the tool schemas are always counted.
  const chars = messages.reduce(
    (sum, m) => sum + textOf(m).length + JSON.stringify(m.tool_calls ?? '').length,
    0,
  )
  const estimated = chars > EXACT_COUNT_LIMIT
  const counter = bpeTokenCounter
  const messageCounter = estimated ? estimateTokenCounter : bpeTokenCounter
  const byRole = new Map<string, { count: number; tokens: number }>()
  for (const m of messages) {
    const entry = byRole.get(m.role) ?? { count: 0, tokens: 0 }
    entry.count++
    entry.tokens += countMessages(messageCounter, [m])
    byRole.set(m.role, entry)
  }
  const toolsJson = JSON.stringify(tools, null, 2)
  const sections: Section[] = [
    { name: 'system prompt (instructions)', tokens: counter.countText(rest) },
    { name: 'frozen memory block', tokens: memory ? counter.countText(memory) : 0 },
    { name: `tool schemas (${tools.length})`, tokens: counter.countText(JSON.stringify(tools)) },
    ...[...byRole].map(([role, v]) => ({
      name: `${role} messages (${formatInt(v.count)})`,
      tokens: v.tokens,
    })),
  ]
  const { window, replyBudget } = measure
  // As the agent asks: the reply gets its budget, or what the window leaves when that is less.
  const prompted = sections.reduce((sum, s) => sum + s.tokens, 0)
  const reply = Math.min(replyBudget, Math.max(0, window - prompted))
  sections.push({
    name:
      reply < replyBudget
        ? `reply budget (what the window leaves; at most ${formatInt(replyBudget)})`
        : 'reply budget',
    tokens: reply,
  })
  const total = prompted + reply
  const trigger = Math.round(window * config.compressor.triggerRatio)
  const pct = (n: number) => `${((n / window) * 100).toFixed(1)}%`
  return page(
    `What the model sees: ${shortId(tip)}`,
    './',
    html`${tip !== id ? html`<p class="muted">Session ${shortId(id)} was compressed; this is the tip of its chain, where the next turn goes.</p>` : ''}
    <p><a href="${sessionHref(tip)}">← the session</a></p>
    <h2>Context against the window</h2>
    <p><strong>${formatInt(total)}</strong> of ${formatInt(window)} tokens (${pct(total)}) · compression triggers at ${formatInt(trigger)} (${Math.round(config.compressor.triggerRatio * 100)}%)
      <br><span class="muted" id="window-source">${
        measure.recorded
          ? html`The window of ${formatInt(window)} tokens is the one the session ran with, recorded with the session${tipSession?.modelConfig?.model ? html` (model <code>${tipSession.modelConfig.model}</code>)` : ''}; the compression trigger is this page's configuration.`
          : html`The window of ${formatInt(window)} tokens is this page's configuration (<code>models.main.context_window</code>): this session recorded none (it was written before sessions recorded their window, or by a tool that does not), so start <code>engram ui</code> with the configuration the agent ran with.`
      }</span>
      ${total > window ? html` · <span class="blocked">over the window</span>` : ''}</p>
    <table><thead><tr><th>section</th><th class="n">tokens</th><th class="n">of the window</th><th></th></tr></thead><tbody>
    ${sections.map(
      (
        s,
      ) => html`<tr><td>${s.name}</td><td class="n">${formatInt(s.tokens)}</td><td class="n">${pct(s.tokens)}</td>
        <td><span class="bar" style="width:${Math.min(100, (s.tokens / window) * 100) * 4}px;background:var(--accent)"></span></td></tr>`,
    )}</tbody></table>
    <p class="muted">Counted with the BPE tokenizer (o200k)${estimated ? html`; the messages (${formatInt(chars)} characters) are <strong>estimated</strong> at about 4 characters per token` : ''}; a provider's own count can differ by a few percent.</p>
    <h2>System prompt</h2>${prompt ? html`<pre>${prompt}</pre>` : html`<p class="muted">No system prompt stored (the session has not run a turn yet).</p>`}
    <h2>Frozen memory block</h2>${memory ? html`<pre>${memory}</pre>` : html`<p class="muted">No memory block in the stored prompt.</p>`}
    <h2>Tool schemas</h2><pre>${toolsJson}</pre>`,
  )
}
