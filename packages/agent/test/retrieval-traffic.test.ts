import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { onlyReports } from '../src/agent/retrieval-reply.ts'
import { type ChatRequest, defineTool, type ModelProvider } from '../src/index.ts'
import { world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'

type Step = { tool: string; args: object } | { answer: string }

/** A model that plays `steps` in order: a tool call, or a final answer. */
function scripted(steps: Step[]): ModelProvider {
  let ids = 0
  return {
    name: 'scripted',
    model: 'scripted',
    async chat(_request: ChatRequest) {
      const step = steps.shift() ?? { answer: 'done' }
      const message =
        'answer' in step
          ? { role: 'assistant' as const, content: step.answer }
          : {
              role: 'assistant' as const,
              content: null,
              tool_calls: [
                {
                  id: `call_${++ids}`,
                  type: 'function' as const,
                  function: { name: step.tool, arguments: JSON.stringify(step.args) },
                },
              ],
            }
      return { message, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 10 } }
    },
  }
}

const lookup = defineTool({
  name: 'lookup',
  description: 'looks a word up',
  input: z.object({ word: z.string() }),
  execute: async ({ word }) => `${word}: a word`,
  render: (text) => text,
})

describe('the agent marks its own retrieval traffic', () => {
  const w = world(tempDir())

  it('marks session_search and memory calls, their results and a reply that only reports them', async () => {
    const store = await w.open()
    const agent = w.agent(
      store,
      scripted([
        { tool: 'session_search', args: { query: 'release window' } },
        { answer: 'I found nothing about "release window" in past conversations.' },
        { tool: 'memory', args: { target: 'memory', action: 'add', content: 'release window: Thursday' } },
        { answer: 'Saved: release window Thursday.' },
      ]),
    )
    await agent.run('When is the release window?')
    await agent.run('Remember the release window is Thursday.')
    const stored = await store.getStoredMessages(agent.sessionId as string)
    expect(stored.map((m) => [m.role, m.retrieval === true])).toEqual([
      ['user', false],
      ['assistant', true],
      ['tool', true],
      ['assistant', true],
      ['user', false],
      ['assistant', true],
      ['tool', true],
      ['assistant', true],
    ])
  })

  it('keeps a reply with work of its own, and every message of a turn that used another tool, as evidence', async () => {
    const store = await w.open()
    const agent = w.agent(
      store,
      scripted([
        { tool: 'session_search', args: { query: 'deploy script' } },
        {
          answer:
            'Here is the plan: build the image, push it to the registry, run migrations, then switch traffic gradually while watching error rates and latency dashboards.',
        },
        { tool: 'session_search', args: { query: 'deploy' } },
        { tool: 'lookup', args: { word: 'deploy' } },
        { answer: 'Found it.' },
      ]),
      { tools: [lookup] },
    )
    await agent.run('What did we say about the deploy script?')
    await agent.run('And the deploy?')
    const stored = await store.getStoredMessages(agent.sessionId as string)
    expect(stored.map((m) => [m.role, m.retrieval === true])).toEqual([
      ['user', false],
      ['assistant', true],
      ['tool', true],
      ['assistant', false],
      ['user', false],
      ['assistant', true],
      ['tool', true],
      ['assistant', false],
      ['tool', false],
      ['assistant', false],
    ])
  })
})

describe('onlyReports', () => {
  const word = fc.stringMatching(/^[a-z]{3,8}$/)
  it('holds for a reply made of the sources’ words, and fails past twelve words of its own', () => {
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 30 }),
        fc.uniqueArray(word, { minLength: 13, maxLength: 30 }),
        (known, fresh) => {
          const sources = [known.join(' ')]
          expect(onlyReports(known.filter((_, i) => i % 2 === 0).join(' '), sources)).toBe(true)
          const own = fresh.filter((f) => !known.includes(f))
          expect(onlyReports([...known, ...own].join(' '), sources)).toBe(own.length <= 12)
        },
      ),
    )
  })

  it('counts a Han character as half a word', () => {
    expect(onlyReports('我在过去的对话中没有找到关于发布窗口的记录。', ['发布窗口'])).toBe(true)
    expect(
      onlyReports('我们应该先构建镜像然后推送到仓库再运行数据迁移最后逐步切换流量并观察错误率。', ['发布']),
    ).toBe(false)
  })
})
