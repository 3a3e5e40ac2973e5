import type { Session, StoredMessage } from '@engram/core'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import {
  type Colors,
  fit,
  formatCost,
  formatInt,
  type Io,
  type Output,
  relativeTime,
  shortIds,
} from '../output.ts'
import { findSession } from '../sessions.ts'

const textOf = (content: StoredMessage['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? String(part.text) : `[${part.type}]`)).join('\n')

/** One message as the transcript shows it: role and time, the text, one dim line per tool call. */
function messageLines(message: StoredMessage, color: Colors, width: number): string[] {
  const roleColor = { user: color.green, assistant: color.cyan, tool: color.yellow, system: color.magenta }
  const head = `${roleColor[message.role](message.role)}${message.name ? color.dim(` ${message.name}`) : ''} ${color.dim(relativeTime(message.timestamp))}`
  const text = textOf(message.content)
  const lines = [head]
  if (message.role === 'tool') lines.push(`  ${color.dim(fit(text, width - 2))}`)
  else if (text) lines.push(...text.split('\n').map((line) => `  ${line}`))
  for (const call of message.tool_calls ?? []) {
    lines.push(
      color.dim(
        `  → ${call.function.name}(${fit(call.function.arguments, Math.max(10, width - 8 - call.function.name.length))})`,
      ),
    )
  }
  return lines
}

function lineageLine(lineage: Session[], current: string, out: Output): string {
  const short = shortIds(lineage.map((s) => s.id))
  return lineage
    .map((s) => (s.id === current ? out.color.bold(short(s.id)) : short(s.id)))
    .join(out.color.dim(' → '))
}

/** `engram show <id|prefix|latest>`: the session, its lineage, its tokens and its messages. */
export function registerShow(program: Command, io: Io): void {
  program
    .command('show')
    .description('show one session: messages, lineage and tokens')
    .argument('<id>', 'a session id, a unique prefix of one, or "latest"')
    .action(async (reference: string, _options, command: Command) => {
      const ctx = createContext(command, io)
      const { out } = ctx
      const shown = await ctx.withStore(
        async (store) => {
          const session = await findSession(store, reference)
          const tip = await store.resolveTip(session.id)
          return {
            session,
            lineage: await store.getLineage(tip),
            messages: await store.getStoredMessages(session.id),
            episodes: await store.getEpisodes(session.id),
            usage: await store.usage({ sessionId: session.id }),
          }
        },
        { create: false },
      )
      if (out.json) return out.printJson(shown)
      const { session: s, lineage, messages, usage } = shown
      const dim = out.color.dim
      out.line(`${out.color.bold(`Session ${s.id}`)}${s.title ? `  ${s.title}` : ''}`)
      out.line(
        dim(
          `${s.source}${s.userId ? ` · user ${s.userId}` : ''} · ${s.model ?? 'no model'} · started ${relativeTime(s.startedAt)}` +
            (s.endedAt ? ` · ended ${relativeTime(s.endedAt)} (${s.endReason})` : ' · open'),
        ),
      )
      out.line(
        dim(
          `${formatInt(s.messageCount)} messages · ${formatInt(s.toolCallCount)} tool calls · ${formatInt(s.inputTokens)} in / ${formatInt(s.outputTokens)} out tokens · ${usage.total.calls} model calls · ${formatCost(s.costUsd)}`,
        ),
      )
      if (lineage.length > 1) out.line(`${dim('lineage')} ${lineageLine(lineage, s.id, out)}`)
      if (s.systemPrompt) out.line(dim(`system prompt: ${fit(s.systemPrompt, out.width - 16)}`))
      for (const message of messages) {
        out.line()
        for (const line of messageLines(message, out.color, out.width)) out.line(line)
      }
    })
}
