import { createInterface } from 'node:readline'
import { type EngramConfig, renderAgentEvent } from '@engram/agent'
import type { ToolCall } from '@engram/core'
import type { Command } from 'commander'
import { type Context, createContext } from '../context.ts'
import { errorLine } from '../errors.ts'
import { fit, highlight, type Io, type Output, relativeTime, shortId } from '../output.ts'
import { openRuntime, type Runtime } from '../runtime.ts'
import { findSession } from '../sessions.ts'
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
  constructor(
    private readonly out: Output,
    private readonly write: (text: string) => void,
  ) {}

  start(): void {
    this.write(`${this.out.color.cyan('engram ›')} `)
    this.#open = true
  }

  text(delta: string): void {
    if (!this.#open) this.start()
    this.write(delta)
  }

  toolCall(call: ToolCall): void {
    if (this.#open) this.write('\n')
    this.write(`${this.out.color.dim(`  → ${call.function.name}(${fit(call.function.arguments, 100)})`)}\n`)
    this.#open = false
  }

  end(): void {
    if (this.#open) this.write('\n')
    this.#open = false
  }
}

async function slash(line: string, runtime: Runtime, out: Output): Promise<'exit' | undefined> {
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
      const session = await agent.resume(arg ? (await findSession(store, arg)).id : 'latest')
      out.line(out.color.dim(`Resumed session ${shortId(session.id)} (${session.messageCount} messages).`))
      return
    }
    case 'search': {
      if (!arg) {
        out.line('Usage: /search <query>')
        return
      }
      const hits = await store.search(arg, { limit: 5 })
      if (hits.length === 0) out.line(`Nothing found for ${JSON.stringify(arg)}.`)
      for (const hit of hits) {
        out.line(
          `  ${out.color.cyan(shortId(hit.sessionId))} ${out.color.dim(`${hit.kind === 'episode' ? 'summary' : hit.role} · ${relativeTime(hit.timestamp)}`)}  ${highlight(fit(hit.snippet, out.width - 30), out.color)}`,
        )
      }
      return
    }
    case 'memory':
      printMemoryFiles(out, await readMemoryFiles(runtime.memory))
      return
    case 'compress': {
      const report = await agent.compressNow()
      if (!report) out.line('Nothing to compress yet.')
      else {
        out.line(
          report.status === 'compressed'
            ? `Compressed ${report.tokensBefore} → ${report.tokensAfter} tokens; continuing in session ${shortId(agent.sessionId ?? '')}.`
            : `Not compressed (${report.status}${report.reason ? `: ${report.reason}` : ''}).`,
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

async function repl(ctx: Context<ChatOptions>, runtime: Runtime, transcript: Transcript): Promise<void> {
  const { io, out } = ctx
  const terminal = Boolean(io.stdin.isTTY && io.stdout.isTTY)
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal })
  let running: AbortController | null = null
  const interrupt = () => {
    if (running) running.abort()
    else rl.close()
  }
  rl.on('SIGINT', interrupt)
  process.on('SIGINT', interrupt)
  rl.setPrompt(`${out.color.green('you ›')} `)
  if (terminal) rl.prompt()
  try {
    for await (const raw of rl) {
      const line = raw.trim()
      if (line.startsWith('/')) {
        const outcome = await slash(line, runtime, out).catch((error) => {
          out.line(out.color.red(errorLine(error)))
          return undefined
        })
        if (outcome === 'exit') break
      } else if (line) {
        running = new AbortController()
        let streamed = false
        try {
          const answer = await runtime.agent.run(line, {
            signal: running.signal,
            onText: (delta) => {
              streamed = true
              transcript.text(delta)
            },
          })
          if (!streamed) transcript.text(answer)
          transcript.end()
        } catch (error) {
          transcript.end()
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
    rl.close()
  }
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
      const config = withModel(ctx.config(), ctx.options.model)
      if (config.api.provider === 'offline') out.note(OFFLINE_NOTE)
      const transcript = new Transcript(out, (text) => io.stdout.write(text))
      const runtime = await openRuntime(config, io, {
        source: ctx.options.source,
        onToolCall: (call) => transcript.toolCall(call),
        onEvent: (event) => {
          const compressed = event.type === 'compression' && event.status === 'compressed'
          if (compressed || event.type === 'nudge') out.note(renderAgentEvent(event) as string)
        },
      })
      try {
        const { resume } = ctx.options
        if (resume !== undefined) {
          const target =
            resume === true || resume === 'latest' ? 'latest' : (await findSession(runtime.store, resume)).id
          const session = await runtime.agent.resume(target)
          out.note(
            `Resumed session ${shortId(session.id)} (${session.messageCount} messages, started ${relativeTime(session.startedAt)}).`,
          )
        }
        if (io.stdin.isTTY) out.note('Type /help for commands, Ctrl-C or /exit to leave.')
        await repl(ctx, runtime, transcript)
        if (runtime.agent.sessionId) {
          out.note(
            `Saved in session ${shortId(runtime.agent.sessionId)}. Continue with \`engram chat --resume latest\`.`,
          )
        }
      } finally {
        await runtime.close()
      }
    })
}
