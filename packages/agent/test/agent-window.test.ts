import { bpeTokenCounter, countMessages, DEFAULT_COMPRESSOR_CONFIG, windowBudget } from '@engram/compressor'
import { type ChatMessage, EngramError } from '@engram/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildSystemPrompt } from '../src/agent/system-prompt.ts'
import {
  type ChatRequest,
  createMemoryTool,
  createOfflineModel,
  createSessionSearchTool,
  defineTool,
  MemoryFiles,
  type ModelProvider,
  renderAgentEvent,
  specOf,
} from '../src/index.ts'
import type { AgentTool } from '../src/tools/tool.ts'
import { agentConfig, toolPairingProblems, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'

const dir = tempDir()
const counter = bpeTokenCounter
const now = () => new Date('2026-03-01T09:00:00Z')

/** What a request costs against the window, counted as the agent counts: system, messages, tool specs. */
function promptTokens(request: ChatRequest): number {
  const system: ChatMessage = { role: 'system', content: request.system }
  const tools = request.tools?.length ? counter.countText(JSON.stringify(request.tools)) : 0
  return countMessages(counter, [system, ...request.messages]) + tools
}

interface Sent {
  prompt: number
  maxTokens: number
  pairing: string[]
}

type Lang = 'en' | 'cjk'
const TEXT: Record<Lang, string> = {
  en: 'worker 7 finished job 4711 in 312 ms (queue=default, retries=0); ',
  cjk: '数据库连接在部署后失败，证书过期，已用 certbot 续期。',
}
const fill = (lang: Lang, chars: number) =>
  TEXT[lang].repeat(Math.ceil(chars / TEXT[lang].length) || 1).slice(0, Math.max(1, chars))

/** A tool whose output is as long as the model asks: what reading a log or a big file looks like. */
const emitTool: AgentTool = defineTool({
  name: 'emit',
  description: 'Returns `chars` characters of log text.',
  input: z.object({ chars: z.number().int(), lang: z.enum(['en', 'cjk']) }),
  async execute(args) {
    return fill(args.lang, args.chars)
  },
  render: (text) => text,
})

interface Call {
  chars: number
  lang: Lang
}
interface Turn {
  text: string
  /** Tool steps the model takes before its answer; each step calls `emit` once per entry. */
  steps: Call[][]
}

/**
 * The offline model behind a script: for each turn it first makes the planned `emit` calls, one step at a
 * time, then lets the offline model answer. Records every request it is sent.
 */
function scriptedModel(): ModelProvider & { sent: Sent[]; plan: Call[][] } {
  const offline = createOfflineModel()
  let ids = 0
  const model = {
    name: 'scripted',
    model: offline.model,
    sent: [] as Sent[],
    plan: [] as Call[][],
    async chat(request: ChatRequest) {
      model.sent.push({
        prompt: promptTokens(request),
        maxTokens: request.maxTokens ?? Number.POSITIVE_INFINITY,
        pairing: toolPairingProblems(request.messages),
      })
      const step = model.plan.shift()
      if (!step) return offline.chat(request)
      const tool_calls = step.map((call) => ({
        id: `call_${++ids}`,
        type: 'function' as const,
        function: { name: 'emit', arguments: JSON.stringify(call) },
      }))
      return {
        message: { role: 'assistant' as const, content: null, tool_calls },
        finishReason: 'tool_calls',
        usage: { inputTokens: promptTokens(request), outputTokens: 10 },
      }
    },
  }
  return model
}

const lang = fc.constantFrom<Lang>('en', 'cjk')
const call = fc.record({
  chars: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 20_000 })),
  lang,
})
const userText = fc.oneof(
  fc.integer({ min: 1, max: 60 }).map((n) => `ok, next step ${n}`),
  fc.tuple(lang, fc.integer({ min: 100, max: 8_000 })).map(([l, n]) => fill(l, n)),
  // Huge single messages: some cannot fit a small window even alone.
  fc.tuple(lang, fc.integer({ min: 8_000, max: 60_000 })).map(([l, n]) => fill(l, n)),
)
const turn: fc.Arbitrary<Turn> = fc.record({
  text: userText,
  steps: fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
})
const conversation = fc.array(turn, { minLength: 1, maxLength: 7 })
const windowSize = fc.oneof(fc.integer({ min: 2_000, max: 12_000 }), fc.integer({ min: 2_000, max: 200_000 }))

describe('the context window is a hard limit in the agent loop', () => {
  it('every request the agent sends fits the window with its reply budget, and every tool call has its result', async ({
    task,
  }) => {
    let cases = 0
    const seen = { cuts: 0, summaries: 0, tooLarge: 0, calls: 0 }
    await fc.assert(
      fc.asyncProperty(windowSize, conversation, async (window, turns) => {
        cases++
        const w = world(dir, `window-${cases}`)
        const store = await w.open()
        const model = scriptedModel()
        const config = agentConfig({ main: { contextWindow: window, maxTokens: 4_096 } })
        const budget = windowBudget(window, DEFAULT_COMPRESSOR_CONFIG)
        const agent = w.agent(store, model, {
          config,
          auxProvider: createOfflineModel(),
          tools: [emitTool],
          now,
          onEvent: (event) => {
            const line = renderAgentEvent(event) ?? ''
            if (line.includes('cut_to_fit=')) seen.cuts++
            else if (line.includes('compressed=yes')) seen.summaries++
          },
        })
        const tools = [createMemoryTool(new MemoryFiles(w.memory)), createSessionSearchTool(store), emitTool]
        for (const { text, steps } of turns) {
          model.plan = steps.map((step) => [...step])
          const before = model.sent.length
          const alone = promptTokens({
            system:
              agent.systemPrompt ??
              buildSystemPrompt({
                snapshotText: (await new MemoryFiles(w.memory).snapshot()).text,
                tools,
                now: now(),
              }),
            messages: [{ role: 'user', content: text }],
            // As the agent sends them: the specs (name, description, parameters), not the tool objects,
            // whose other fields made this count a few tokens high and failed a turn at the limit.
            tools: tools.map(specOf),
          })
          if (alone <= budget.promptTokens) {
            await agent.run(text)
            continue
          }
          // Only a user turn too big for the window on its own stops a turn, and before any model call.
          const error = await agent.run(text).catch((e: unknown) => e)
          expect(error).toBeInstanceOf(EngramError)
          expect((error as EngramError).code).toBe('CONTEXT_TOO_LARGE')
          expect(model.sent.length).toBe(before)
          seen.tooLarge++
        }
        seen.calls += model.sent.length
        for (const sent of model.sent) {
          expect(sent.prompt, `window ${window}`).toBeLessThanOrEqual(budget.promptTokens)
          expect(sent.prompt + sent.maxTokens, `window ${window}`).toBeLessThanOrEqual(window)
          expect(sent.pairing).toEqual([])
        }
        await store.close()
      }),
      // A case quiet in about a quarter of a second once ran past the whole test's limit (CI, 2026-12-02):
      // one case may take half of it, and then fast-check stops and reports that case and its seed.
      { numRuns: 20, timeout: task.timeout / 2, endOnFailure: true },
    )
    // The cases reached every path: summarising compressions, cuts to the window, refused turns.
    console.log(`[window] ${cases} conversations, ${seen.calls} model calls:`, seen)
    expect(seen.cuts).toBeGreaterThan(0)
    expect(seen.summaries).toBeGreaterThan(0)
    expect(seen.tooLarge).toBeGreaterThan(0)
  })
})
