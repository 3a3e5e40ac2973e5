import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  type AgentEventHandler,
  createAgent,
  createOfflineModel,
  type EngramConfig,
  MemoryFiles,
  toolResultText,
} from '@engram/agent'
import { bpeTokenCounter } from '@engram/compressor'
import { EngramError, openStore } from '@engram/core'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { BUILT_IN_EVAL_DIR } from '../data.ts'
import { wholeOption } from '../errors.ts'
import { formatInt, type Io } from '../output.ts'
import { startProgress } from '../progress.ts'
import { AUXILIARY_RULE, summarizeUsage, type UsageSummary } from './usage.ts'

/**
 * The smallest window eval simulates: below it the system prompt, the memory files and the reply budget
 * alone fill the window, and the replay measures nothing but refusals.
 */
const MIN_EVAL_WINDOW = 2_000

function loadConversation(name: string, cwd: string): { name: string; turns: string[] } {
  const given = resolve(cwd, name)
  const path = existsSync(given) ? given : join(BUILT_IN_EVAL_DIR, `${name}.json`)
  if (!existsSync(path)) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `No conversation ${JSON.stringify(name)}: use "standard" or the path of a JSON file {"turns": ["…", …]}.`,
    )
  }
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; turns?: unknown }
  const turns = Array.isArray(parsed) ? parsed : parsed.turns
  if (!Array.isArray(turns) || !turns.every((t) => typeof t === 'string') || turns.length === 0) {
    throw new EngramError('INVALID_ARGUMENT', `${path} must hold {"turns": [...]} with at least one string.`)
  }
  return { name: parsed.name ?? name, turns: turns as string[] }
}

interface EvalResult {
  conversation: string
  turns: number
  window: number
  compressions: number
  /** Tokens of the MEMORY/USER block in the system prompt at the end (frozen into each session's prompt). */
  memoryTokens: number
  search: { calls: number; tokens: number }
  usage: UsageSummary
  peakContextRatio: number
  seconds: number
}

/** Counts the `session_search` calls and the tokens of their results as the model receives them. */
function searchMeter() {
  const meter = { calls: 0, tokens: 0 }
  const onEvent: AgentEventHandler = (event) => {
    if (event.type !== 'tool-finished' || event.call.function.name !== 'session_search') return
    meter.calls++
    meter.tokens += bpeTokenCounter.countText(toolResultText(event.result))
  }
  return { onEvent, meter }
}

/** Replays the conversation with the offline model on a temporary database and memory files. */
async function replay(
  config: EngramConfig,
  conversation: { name: string; turns: string[] },
  io: Io,
  json: boolean,
): Promise<EvalResult> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-eval-'))
  const started = performance.now()
  const store = await openStore({ ...config.storage, url: join(dir, 'eval.db') })
  try {
    const memory = new MemoryFiles({
      ...config.memoryFiles,
      memoryPath: join(dir, 'MEMORY.md'),
      userPath: join(dir, 'USER.md'),
    })
    const search = searchMeter()
    const agent = createAgent({
      store,
      provider: createOfflineModel(),
      memory,
      config,
      source: 'eval',
      onEvent: search.onEvent,
    })
    const progress = startProgress(io, json, 'Replaying', conversation.turns.length)
    let peak = 0
    try {
      for (const turn of conversation.turns) {
        await agent.run(turn)
        peak = Math.max(peak, agent.lastContext?.ratio ?? 0)
        progress.increment()
      }
    } finally {
      progress.stop()
    }
    const lineage = await store.getLineage(agent.sessionId as string)
    return {
      conversation: conversation.name,
      turns: conversation.turns.length,
      window: config.models.main.contextWindow,
      compressions: lineage.length - 1,
      memoryTokens: bpeTokenCounter.countText((await memory.snapshot()).text),
      search: search.meter,
      usage: summarizeUsage(await store.usage()),
      peakContextRatio: peak,
      seconds: (performance.now() - started) / 1000,
    }
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * `engram eval --conversation standard [--window N]`: the Hermes tuning loop. Replays a committed long
 * conversation with the offline model under the current config and reports what it cost: compressions,
 * tokens injected by the memory files and by search, main vs auxiliary tokens, the peak context ratio.
 */
export function registerEval(program: Command, io: Io): void {
  program
    .command('eval')
    .description('replay a long conversation under the current config and print what the memory costs')
    .option(
      '--conversation <name|file>',
      'the built-in "standard" conversation or a JSON file of turns',
      'standard',
    )
    .option(
      '--window <tokens>',
      "the main model's context window to simulate (default: models.main.context_window)",
    )
    .action(async (_options, command: Command) => {
      const ctx = createContext<{ conversation: string; window?: string }>(command, io)
      const base = ctx.config()
      const window = wholeOption(ctx.options.window, '--window', base.models.main.contextWindow, {
        min: MIN_EVAL_WINDOW,
      })
      const config = {
        ...base,
        models: { ...base.models, main: { ...base.models.main, contextWindow: window } },
      }
      const result = await replay(
        config,
        loadConversation(ctx.options.conversation, io.cwd),
        io,
        ctx.out.json,
      )
      const { out } = ctx
      if (out.json) return out.printJson(result)
      const { usage } = result
      const ratio = usage.auxiliaryRatio === null ? '—' : `${(usage.auxiliaryRatio * 100).toFixed(1)}%`
      const flag =
        usage.withinRule === false ? out.color.red(` (above the ${AUXILIARY_RULE * 100}% rule)`) : ''
      out.table(
        ['METRIC', 'VALUE'],
        [
          ['conversation', `${result.conversation} (${result.turns} turns)`],
          ['context window', `${formatInt(result.window)} tokens`],
          ['compressions triggered', String(result.compressions)],
          ['memory files in the system prompt', `${formatInt(result.memoryTokens)} tokens`],
          [
            'session_search results injected',
            `${formatInt(result.search.tokens)} tokens in ${result.search.calls} calls`,
          ],
          ['main tokens', formatInt(usage.mainTokens)],
          ['auxiliary tokens', formatInt(usage.auxiliaryTokens)],
          ['auxiliary / main', `${ratio}${flag}`],
          ['peak context ratio', `${(result.peakContextRatio * 100).toFixed(1)}% of the window`],
          ['time', `${result.seconds.toFixed(1)} s`],
        ],
      )
      if (result.compressions === 0) {
        out.line(
          out.color.dim(
            `No compression at a ${formatInt(window)}-token window; try --window 32000 to see the compressor work.`,
          ),
        )
      }
    })
}
