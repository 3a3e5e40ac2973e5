import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Writable } from 'node:stream'
import { type ContextReport, type EngramConfig, loadConfig } from '@engram/agent'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { cliCommand } from '../invocation.ts'
import { createOutput, fit, highlight, type Io, type Output, shellWord, shortId } from '../output.ts'
import { openRuntime, type Runtime } from '../runtime.ts'
import { Transcript } from './chat.ts'
import { printMemoryFiles, readMemoryFiles } from './memory.ts'
import { printUsage, summarizeUsage } from './usage.ts'

/** Where the silent walkthrough of `demo --json` writes. */
const DISCARD = new Writable({ write: (_chunk, _encoding, done) => done() })

const TEACH = [
  'remember that the API backend uses FastAPI and deploys to fly.io',
  'remember I prefer short answers with the code first',
  '记住：数据库用 PostgreSQL 16，端口 5433',
  'The job queue runs on Redis because Celery was too heavy for us.',
  '部署的时候遇到了 SSL 证书过期的问题，后来用 certbot 自动续期解决了。',
]

/** Lines of each worker log pasted in part 3: two compressions in seven turns at a 6,000-token window (the seventh ends well under the trigger, so a few tokens more in the tools or prompt do not add a third). */
const LOG_LINES = 24

const RECALL = [
  'Which framework does the API backend use?',
  'What did I say about the job queue?',
  '上次部署遇到了什么问题？',
  '数据库用的什么？',
]

/** A tool's output long enough to make the context grow: what an agent sees when it reads logs. */
function logPaste(turn: number): string {
  const lines = Array.from(
    { length: LOG_LINES },
    (_, i) =>
      `2026-03-0${(turn % 9) + 1}T10:${String(i).padStart(2, '0')}:00Z worker-${turn} job ${turn * 100 + i} finished in ${(i * 37) % 900} ms (queue=default, retries=0)`,
  )
  return `Here is the worker log from run ${turn}, please keep it in mind:\n${lines.join('\n')}`
}

/** The context the turn's model call was sent, against the window: the ratio a viewer watches stay under 1. */
function contextLine(out: Output, turn: number, context: ContextReport | null): void {
  if (!context) return
  const n = (value: number) => value.toLocaleString('en-US')
  const compressed = context.compressed ? ', compressed into a child session' : ''
  out.line(
    out.color.dim(
      `  [ctx] turn ${turn}: sent ${n(context.tokens)} of ${n(context.window)} tokens (ratio ${context.ratio.toFixed(2)})${compressed}`,
    ),
  )
}

function heading(out: Output, text: string): void {
  out.line()
  out.line(out.color.bold(out.color.magenta(`── ${text} ──`)))
}

async function say(
  runtime: Runtime,
  out: Output,
  transcript: Transcript,
  text: string,
  echo?: string,
): Promise<void> {
  out.line(`${out.color.green('you ›')} ${echo ?? text}`)
  if (echo !== undefined) {
    // A pasted log: the answer is shown on one line, the point is the context growing.
    transcript.text(fit(await runtime.agent.run(text), Math.max(40, out.width - 10)))
    transcript.end()
    return
  }
  let streamed = false
  const answer = await runtime.agent.run(text, {
    onText: (delta) => {
      streamed = true
      transcript.text(delta)
    },
  })
  if (!streamed) transcript.text(answer)
  transcript.end()
}

/** The demo's configuration: the defaults, the offline model, everything inside `dir`. */
function demoConfig(database: string, window?: number): EngramConfig {
  const base = loadConfig({ file: null, env: {}, cwd: dirname(database) })
  const config: EngramConfig = {
    ...base,
    storage: { ...base.storage, url: database },
    memoryFiles: {
      ...base.memoryFiles,
      memoryPath: join(dirname(database), 'MEMORY.md'),
      userPath: join(dirname(database), 'USER.md'),
    },
  }
  if (window === undefined) return config
  return {
    ...config,
    compressor: { ...config.compressor, tailProtectTokens: 1_500, replyBudgetTokens: 500 },
    models: { ...config.models, main: { ...config.models.main, contextWindow: window } },
  }
}

/**
 * `engram demo [--db PATH]`: a scripted walkthrough with the offline model: teach facts, restart, recall
 * them from the memory files and from search (English and Chinese), run a long session through
 * compression into a child session, print the usage report. Seconds, no network.
 */
export function registerDemo(program: Command, io: Io): void {
  program
    .command('demo')
    .description('a scripted walkthrough with the offline model on a temporary database (no API key needed)')
    .action(async (_options, command: Command) => {
      const ctx = createContext(command, io)
      // With --json the walkthrough runs silently and stdout holds only the JSON document.
      const out = ctx.out.json ? createOutput({ ...io, stdout: DISCARD }, false) : ctx.out
      const database = ctx.options.db
        ? resolve(io.cwd, ctx.options.db)
        : join(mkdtempSync(join(tmpdir(), 'engram-demo-')), 'engram.db')
      mkdirSync(dirname(database), { recursive: true })
      const transcript = new Transcript(out, (text) => {
        if (!ctx.out.json) io.stdout.write(text)
      })
      const open = (window?: number) =>
        openRuntime(demoConfig(database, window), io, {
          source: 'demo',
          userId: ctx.user(),
          onToolCall: (call) => transcript.toolCall(call),
          // Part 3 prints one context line per turn (contextLine).
        })
      out.line(out.color.dim(`Database: ${database} · model: offline (deterministic, no network)`))

      heading(out, '1. Teach it a few facts')
      let runtime = await open()
      for (const text of TEACH) await say(runtime, out, transcript, text)
      const first = runtime.agent.sessionId as string
      await runtime.close()

      heading(out, '2. Restart: a new process, the same database and memory files')
      runtime = await open()
      printMemoryFiles(out, await readMemoryFiles(runtime.memory))
      for (const text of RECALL) await say(runtime, out, transcript, text)
      await runtime.close()

      heading(out, '3. A long session: compression continues it in a child session')
      runtime = await open(6_000)
      for (let turn = 1; turn <= 7; turn++) {
        await say(runtime, out, transcript, logPaste(turn), `(pastes worker log ${turn}: ${LOG_LINES} lines)`)
        contextLine(out, turn, runtime.agent.lastContext)
      }
      const tip = runtime.agent.sessionId as string
      const lineage = await runtime.store.getLineage(tip)
      out.line(
        `Lineage: ${lineage.map((s) => `${shortId(s.id)} (${s.messageCount} msgs${s.endReason ? `, ${s.endReason}` : ''})`).join(' → ')}`,
      )
      const hits = await runtime.store.search('worker log run 1', { limit: 1 })
      if (hits[0])
        out.line(
          `The archived turns stay searchable: ${shortId(hits[0].sessionId)} · ${highlight(fit(hits[0].snippet, 70), out.color)}`,
        )
      const report = await runtime.store.usage()
      await runtime.close()

      heading(out, '4. Usage: tokens by purpose and model, and the 20% rule')
      const summary = summarizeUsage(report)
      if (ctx.out.json) {
        ctx.out.printJson({ database, firstSession: first, lineage: lineage.map((s) => s.id), ...summary })
        return
      }
      printUsage(out, summary)
      out.line()
      // The demo's memory files sit beside its database, where `--db` puts them for chat too.
      const db = shellWord(database)
      // In the form that runs where the user is (`pnpm engram` in the clone, `engram` once installed).
      const cli = cliCommand(io)
      out.line(
        `Explore it: ${cli} sessions --db ${db}   ·   ${cli} chat --db ${db} --source demo --resume latest`,
      )
    })
}
