import { createInterface } from 'node:readline'
import { type EngramConfig, maskUrl, renderAgentEvent } from '@engram/agent'
import type { CompressionReport } from '@engram/compressor'
import type { ToolCall } from '@engram/core'
import type { Command } from 'commander'
import { type Context, createContext } from '../context.ts'
import { AlreadyReported, errorLine, UsageError } from '../errors.ts'
import { cliCommand } from '../invocation.ts'
import {
  DATABASE_VARIABLE,
  databaseWords,
  fit,
  formatInt,
  highlight,
  type Io,
  type Output,
  relativeTime,
  shellWord,
  shortId,
  shortIds,
} from '../output.ts'
import { waiting } from '../progress.ts'
import { openRuntime, type Runtime } from '../runtime.ts'
import { findOwnSession } from '../sessions.ts'
import { printMemoryFiles, readMemoryFiles } from './memory.ts'
import { printUsage, summarizeUsage } from './usage.ts'

interface ChatOptions {
  resume?: string | true
  model?: string
  source: string
}

const HELP = `Commands:
  /new              end this session and start a new one
  /resume [id]      continue another session (default: the latest)
  /search <query>   search everything said before
  /memory           show MEMORY.md and USER.md
  /compress         compress the context now
  /usage            tokens and cost of this session
  /help             this list
  /exit             leave (Ctrl-C at the prompt does the same; Ctrl-C during an answer stops it)`

const OFFLINE_NOTE =
  'No API key set (OPENAI_API_KEY or ANTHROPIC_API_KEY): using the offline model. It saves facts ("remember …", "记住…") and recalls them, but it does not reason.'

function withModel(config: EngramConfig, model: string | undefined): EngramConfig {
  if (!model) return config
  return { ...config, models: { ...config.models, main: { ...config.models.main, modelId: model } } }
}

/** Prints the model's text as it streams and tool calls as one dim line each, keeping lines whole. */
export class Transcript {
  #open = false
  /** Runs before anything is printed (the REPL stops its spinner there). */
  beforeWrite: () => void = () => undefined
  constructor(
    private readonly out: Output,
    private readonly write: (text: string) => void,
  ) {}

  start(): void {
    this.beforeWrite()
    this.write(`${this.out.color.cyan('engram ›')} `)
    this.#open = true
  }

  text(delta: string): void {
    if (!this.#open) this.start()
    this.write(delta)
  }

  toolCall(call: ToolCall): void {
    this.beforeWrite()
    if (this.#open) this.write('\n')
    this.write(`${this.out.color.dim(`  → ${call.function.name}(${fit(call.function.arguments, 100)})`)}\n`)
    this.#open = false
  }

  end(): void {
    if (this.#open) this.write('\n')
    this.#open = false
  }
}

/** Why /compress left the context as it was, in words a user can act on. */
function notCompressed(report: CompressionReport): string {
  if (report.status === 'aborted')
    return `Not compressed: ${report.reason ?? 'the summariser failed'}. The conversation is unchanged; try again once the model answers.`
  if (report.messagesSummarized === 0)
    return `Not compressed: all ${report.messagesBefore} messages (${formatInt(report.tokensBefore)} tokens) are in the parts that are always kept whole, the first messages and the most recent turns, so there is nothing in between to summarise yet. Compression also runs by itself when the context nears the window.`
  return `Not compressed: a summary of the ${report.messagesSummarized} messages in between would not be smaller than they are.`
}

async function slash(
  line: string,
  runtime: Runtime,
  out: Output,
  scope: { source: string; user: string; command: string },
): Promise<'exit' | undefined> {
  const [command = '', ...rest] = line.slice(1).split(/\s+/)
  const arg = rest.join(' ').trim()
  const { agent, store } = runtime
  switch (command) {
    case 'exit':
    case 'quit':
      return 'exit'
    case 'help':
      out.line(HELP)
      return
    case 'new': {
      const session = await agent.newSession()
      out.line(out.color.dim(`New session ${shortId(session.id)}.`))
      return
    }
    case 'resume': {
      const session = await agent.resume((await findOwnSession(store, arg || 'latest', scope)).id)
      out.line(out.color.dim(`Resumed session ${shortId(session.id)} (${session.messageCount} messages).`))
      return
    }
    case 'search': {
      if (!arg) {
        out.line('Usage: /search <query>')
        return
      }
      const hits = await store.search(arg, { limit: 5, userId: scope.user })
      if (hits.length === 0) out.line(`Nothing found for ${JSON.stringify(arg)}.`)
      const short = shortIds(hits.map((hit) => hit.sessionId))
      for (const hit of hits) {
        out.line(
          `  ${out.color.cyan(short(hit.sessionId))} ${out.color.dim(`${hit.kind === 'episode' ? 'summary' : hit.role} · ${relativeTime(hit.timestamp)}`)}  ${highlight(fit(hit.snippet, out.width - 30), out.color)}`,
        )
      }
      return
    }
    case 'memory':
      printMemoryFiles(out, await readMemoryFiles(runtime.memory))
      return
    case 'compress': {
      const report = await agent.compressNow()
      if (!report) out.line('Nothing to compress yet: this chat has no session until its first message.')
      else {
        out.line(
          report.status === 'compressed'
            ? `Compressed ${report.tokensBefore} → ${report.tokensAfter} tokens; continuing in session ${shortId(agent.sessionId ?? '')}.`
            : notCompressed(report),
        )
      }
      return
    }
    case 'usage': {
      if (!agent.sessionId) out.line('No session yet.')
      else printUsage(out, summarizeUsage(await store.usage({ sessionId: agent.sessionId })))
      return
    }
    default:
      out.line(`Unknown command /${command}. Type /help for the list.`)
  }
}

/** Why a chat ended, stored as the session's end reason (so `prune` can remove it later). */
type EndReason = 'user_exit' | 'interrupted' | 'end_of_input' | 'terminated'

// The terminal sends a paste between these (bracketed paste mode), so a pasted block is one turn.
const PASTE_ON = '\u001b[?2004h'
const PASTE_OFF = '\u001b[?2004l'

/** The REPL: one turn per line (per paste on a terminal); returns why it ended and whether a turn failed. */
async function repl(
  ctx: Context<ChatOptions>,
  runtime: Runtime,
  transcript: Transcript,
): Promise<{ reason: EndReason; failed: boolean }> {
  const { io, out } = ctx
  const terminal = Boolean(io.stdin.isTTY && io.stdout.isTTY)
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal })
  let running: AbortController | null = null
  let reason: EndReason = 'end_of_input'
  let failed = false
  const interrupt = () => {
    if (running) running.abort()
    else {
      reason = 'interrupted'
      rl.close()
    }
  }
  const terminate = () => {
    reason = 'terminated'
    running?.abort()
    rl.close()
  }
  rl.on('SIGINT', interrupt)
  process.on('SIGINT', interrupt)
  process.on('SIGTERM', terminate)
  // Lines that arrive inside a paste are held and sent with the line that ends it.
  let pasting = false
  const pasted: string[] = []
  const onKey = (_text: string, key?: { name?: string }) => {
    if (key?.name === 'paste-start') pasting = true
    else if (key?.name === 'paste-end') pasting = false
  }
  if (terminal) {
    io.stdin.on('keypress', onKey)
    io.stdout.write(PASTE_ON)
  }
  // Lines are taken as they arrive (whether they are inside a paste is known only then) and queued while
  // a turn runs.
  const turns: string[] = []
  let closed = false
  let wake: () => void = () => undefined
  rl.on('line', (raw) => {
    if (pasting) pasted.push(raw)
    else turns.push(pasted.length > 0 ? [...pasted.splice(0), raw].join('\n') : raw)
    wake()
  })
  rl.on('close', () => {
    closed = true
    wake()
  })
  const next = async (): Promise<string | null> => {
    while (turns.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve))
    return turns.shift() ?? null
  }
  rl.setPrompt(`${out.color.green('you ›')} `)
  if (terminal) rl.prompt()
  try {
    for (let raw = await next(); raw !== null; raw = await next()) {
      const line = raw.trim()
      if (line.startsWith('/') && !line.includes('\n')) {
        const outcome = await slash(line, runtime, out, {
          source: ctx.options.source,
          user: ctx.user(),
          command: cliCommand(io),
        }).catch((error) => {
          out.line(out.color.red(errorLine(error)))
          return undefined
        })
        if (outcome === 'exit') {
          reason = 'user_exit'
          break
        }
      } else if (line) {
        running = new AbortController()
        let streamed = false
        const wait = waiting(io, 'thinking')
        transcript.beforeWrite = () => wait.stop()
        try {
          const answer = await runtime.agent.run(line, {
            signal: running.signal,
            onText: (delta) => {
              wait.stop()
              streamed = true
              transcript.text(delta)
            },
          })
          wait.stop()
          if (!streamed) transcript.text(answer)
          transcript.end()
        } catch (error) {
          wait.stop()
          transcript.end()
          if (!running.signal.aborted) failed = true
          out.line(
            running.signal.aborted
              ? out.color.dim('(stopped; what was said is saved)')
              : out.color.red(errorLine(error)),
          )
        } finally {
          running = null
        }
      }
      if (terminal) rl.prompt()
    }
  } finally {
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', terminate)
    if (terminal) {
      io.stdin.off('keypress', onKey)
      io.stdout.write(PASTE_OFF)
    }
    rl.close()
  }
  return { reason, failed }
}

/**
 * The command that continues this chat, run as `cli`: the same --db, --config and --source as this one. A
 * database url with a secret is referred to as $ENGRAM_DB_URL and shown masked, never printed.
 */
function continueCommand(cli: string, options: ChatOptions & { db?: string; config?: string }): string {
  const parts = [`${cli} chat`]
  if (options.db) parts.push(databaseWords(options.db))
  if (options.config) parts.push(`--config ${shellWord(options.config)}`)
  if (options.source !== 'cli') parts.push(`--source ${shellWord(options.source)}`)
  parts.push('--resume latest')
  const masked = options.db ? maskUrl(options.db) : undefined
  const variable = masked === options.db ? '' : ` with ${DATABASE_VARIABLE} set to \`${masked}\``
  return `\`${parts.join(' ')}\`${variable}`
}

/** `engram chat [--resume [id|latest]] [--model m] [--source s]`: the REPL. */
export function registerChat(program: Command, io: Io): void {
  program
    .command('chat')
    .description('talk to the agent; every message is saved the moment it exists')
    .option('--resume [id]', 'continue a session: an id, a prefix, or latest (the default)')
    .option('--model <model>', 'the main model id (overrides HERMES_MODEL and the config)')
    .option('--source <source>', 'the source stored on new sessions', 'cli')
    .action(async (_options, command: Command) => {
      const ctx = createContext<ChatOptions>(command, io)
      const { out } = ctx
      if (ctx.options.json) {
        throw new UsageError(
          'chat has no --json output (it is a conversation). Chat, then read it as JSON with `engram show latest --json`.',
        )
      }
      const config = withModel(ctx.config(), ctx.options.model)
      if (config.api.provider === 'offline') out.note(OFFLINE_NOTE)
      const transcript = new Transcript(out, (text) => io.stdout.write(text))
      const user = ctx.user()
      const runtime = await openRuntime(config, io, {
        source: ctx.options.source,
        userId: user,
        onToolCall: (call) => transcript.toolCall(call),
        onEvent: (event) => {
          const compressed = event.type === 'compression' && event.status === 'compressed'
          if (compressed || event.type === 'nudge') out.note(renderAgentEvent(event) as string)
        },
      })
      let failed = false
      try {
        const { resume, source } = ctx.options
        if (resume !== undefined) {
          const reference = resume === true ? 'latest' : resume
          const found = await findOwnSession(runtime.store, reference, {
            source,
            user,
            command: cliCommand(io),
          })
          const session = await runtime.agent.resume(found.id)
          out.note(
            `Resumed session ${shortId(session.id)} (${session.messageCount} messages, started ${relativeTime(session.startedAt)}).`,
          )
        }
        if (io.stdin.isTTY) out.note('Type /help for commands, Ctrl-C or /exit to leave.')
        const ended = await repl(ctx, runtime, transcript)
        failed = ended.failed
        const id = runtime.agent.sessionId
        if (id) {
          // The session ends with the chat, so that `engram prune` can remove it once it is old.
          await runtime.store.endSession(id, ended.reason)
          out.note(
            `Saved in session ${shortId(id)}. Continue with ${continueCommand(cliCommand(io), ctx.options)}.`,
          )
        }
      } finally {
        await runtime.close()
      }
      // Piped input has no one to read the error: the exit code says a turn failed.
      if (failed && !io.stdin.isTTY) throw new AlreadyReported('a turn of the chat failed')
    })
}
