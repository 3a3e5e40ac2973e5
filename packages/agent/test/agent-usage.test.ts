import { describe, expect, it } from 'vitest'
import { createAnthropicProvider, createOpenAIProvider } from '../src/index.ts'
import { agentConfig, logTo, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'
import { ANTHROPIC_KEY, OPENAI_KEY } from './providers-helpers.ts'
import { anthropicAnswer } from './servers/anthropic.ts'
import { bodyOf, startServer } from './servers/http.ts'
import { openaiAnswer } from './servers/openai.ts'

const dir = tempDir()
const words = (topic: string) => Array.from({ length: 30 }, (_, i) => `${topic}${i}`).join(' ')

describe('token accounting', () => {
  it('main, compression and nudge totals in the store equal what the local servers reported, with costs', async () => {
    const main = await startServer([
      openaiAnswer({ text: words('alpha'), usage: { prompt: 300, completion: 20, cached: 100 } }),
      openaiAnswer({ text: words('beta'), usage: { prompt: 1_600, completion: 25 } }),
      openaiAnswer({ text: 'done', usage: { prompt: 300, completion: 15 } }),
    ])
    const aux = await startServer([
      anthropicAnswer({ text: 'nothing to save', usage: { input: 300, output: 5, cacheRead: 100 } }),
      anthropicAnswer({
        text: '## Goal\nDeploy v2 to production.\nImportance: 6/10',
        usage: { input: 400, output: 150, cacheWrite: 50 },
      }),
    ])
    try {
      const w = world(dir, 'usage')
      const store = await w.open()
      const logs: string[] = []
      const config = agentConfig({
        main: { contextWindow: 2_000, price: { input: 2, output: 8, cacheRead: 0.5 } },
        aux: { price: { input: 1, output: 5 } },
        compressor: { replyBudgetTokens: 0, headProtectMessages: 1, tailProtectTokens: 20 },
        intervalTasks: 2,
      })
      const agent = w.agent(
        store,
        createOpenAIProvider({
          apiKey: OPENAI_KEY,
          baseUrl: `${main.origin}/v1`,
          model: 'gpt-local',
          env: {},
        }),
        {
          auxProvider: createAnthropicProvider({
            apiKey: ANTHROPIC_KEY,
            baseUrl: aux.origin,
            model: 'claude-local',
            env: {},
          }),
          config,
          onEvent: logTo(logs),
        },
      )
      await agent.run(words('first'))
      const root = agent.sessionId as string
      await agent.run(words('second')) // the second task: the nudge runs on the auxiliary model
      await agent.run(words('third')) // 1,600 reported + the new turns ≥ 1,500: compression first
      expect(main.requests).toHaveLength(3)
      expect(aux.requests).toHaveLength(2)
      expect(agent.sessionId).not.toBe(root)

      const usage = await store.usage()
      expect(usage.byPurpose.main).toEqual({
        calls: 3,
        inputTokens: 2_200,
        outputTokens: 60,
        cacheReadTokens: 100,
        cacheWriteTokens: 0,
        costUsd: expect.closeTo((2_100 * 2 + 100 * 0.5 + 60 * 8) / 1e6, 12),
      })
      // Anthropic's input_tokens exclude cache reads and writes; the prompt is their sum.
      expect(usage.byPurpose.nudge).toEqual({
        calls: 1,
        inputTokens: 400,
        outputTokens: 5,
        cacheReadTokens: 100,
        cacheWriteTokens: 0,
        costUsd: expect.closeTo((400 * 1 + 5 * 5) / 1e6, 12),
      })
      expect(usage.byPurpose.compression).toEqual({
        calls: 1,
        inputTokens: 450,
        outputTokens: 150,
        cacheReadTokens: 0,
        cacheWriteTokens: 50,
        costUsd: expect.closeTo((450 * 1 + 150 * 5) / 1e6, 12),
      })
      expect(usage.byModel['claude-local']?.calls).toBe(2)

      const nudge = bodyOf<{
        tools: { name: string }[]
        system: { text: string }[]
        messages: { content: { text: string }[] }[]
      }>(aux, 0)
      expect(nudge.tools.map((t) => t.name)).toEqual(['memory'])
      expect(nudge.messages[0]?.content[0]?.text).toContain('[memory review]')
      expect(nudge.messages[0]?.content[0]?.text).toContain('second29')
      const summary = bodyOf<{ system: { text: string }[] }>(aux, 1)
      expect(summary.system[0]?.text).toContain('## Critical context')

      const [episode] = await store.getEpisodes(root)
      expect(episode?.importance).toBe(7) // deploy/production → 8, the summariser said 6
      const ctx = logs.filter((l) => l.startsWith('[ctx]'))
      expect(ctx, ctx.join('; ')).toHaveLength(1)
      const [, tokens] =
        /^\[ctx\] tokens=(\d+) window=2000 ratio=\d\.\d\d compressed=yes/.exec(ctx[0] as string) ?? []
      expect(Number(tokens)).toBeGreaterThanOrEqual(1_600)
      expect(logs).toContain('[nudge] reviewed 4 messages, 0 memory write(s)')
      expect(logs.join('\n')).not.toContain(OPENAI_KEY)
    } finally {
      await main.close()
      await aux.close()
    }
  })
})
