import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runNudge } from '../src/agent/nudge.ts'
import { createMemoryTool, createOfflineModel, createOpenAIProvider, MemoryFiles } from '../src/index.ts'
import { agentConfig, logTo, world } from './agent-helpers.ts'
import { memoryConfig, tempDir } from './memory-helpers.ts'
import { closedPort } from './servers/http.ts'

const dir = tempDir()

describe('the memory nudge', () => {
  it('every intervalTasks answered turns, a review on the auxiliary model saves durable facts; its messages stay out of the session', async () => {
    const w = world(dir, 'nudge')
    const store = await w.open()
    const logs: string[] = []
    const agent = w.agent(store, createOfflineModel(), {
      auxProvider: createOfflineModel('engram-offline-aux'),
      config: agentConfig({ intervalTasks: 3 }),
      onEvent: logTo(logs),
    })
    await agent.run('I prefer tabs over spaces in every repository.')
    await agent.run('The API runs on port 8080 in production.')
    expect(logs).toEqual([])
    await agent.run('What time is it?')
    expect(logs).toEqual(['[nudge] reviewed 6 messages, 2 memory write(s)'])
    expect(readFileSync(w.memory.userPath, 'utf8')).toContain(
      'I prefer tabs over spaces in every repository.',
    )
    expect(readFileSync(w.memory.memoryPath, 'utf8')).toContain('The API runs on port 8080 in production.')

    const sessionId = agent.sessionId as string
    expect(await store.getMessages(sessionId)).toHaveLength(6)
    const usage = await store.usage({ sessionId })
    expect(usage.byPurpose.nudge?.calls).toBe(2) // the memory call, then the closing answer
    expect(usage.byModel['engram-offline-aux']?.calls).toBe(2)
    expect(usage.byPurpose.main?.calls).toBe(3)

    // The next review only sees the turns since the last one, and saves nothing twice.
    for (const text of ['I prefer tabs over spaces in every repository.', 'ok', 'thanks'])
      await agent.run(text)
    expect(logs.at(-1)).toBe('[nudge] reviewed 6 messages, 0 memory write(s)')
    expect(readFileSync(w.memory.userPath, 'utf8').split('I prefer tabs').length).toBe(2)
  })

  it('asks for consolidation when the files are above compact_trigger_ratio', async () => {
    const config = memoryConfig(dir, { compactTriggerRatio: 0.1, memoryCharLimit: 300 })
    const memory = new MemoryFiles(config)
    await memory.apply('memory', [
      { action: 'add', content: 'The staging database is restored every night at 02:00 UTC.' },
    ])
    const outcome = await runNudge({
      provider: createOfflineModel(),
      memory,
      memoryTool: createMemoryTool(memory),
      messages: [{ role: 'user', content: 'We deploy with Docker on Fly.io.' }],
      context: { sessionId: 'none' },
      maxTokens: 500,
    })
    expect(outcome.consolidate).toBe(true)
    expect(outcome.writes).toBe(1)
    expect(readFileSync(config.memoryPath, 'utf8')).toContain('We deploy with Docker on Fly.io.')
  })

  it('a failing auxiliary model never breaks the answer: the review is skipped with one log line', async () => {
    const w = world(dir, 'nudge-fail')
    const store = await w.open()
    const logs: string[] = []
    const port = await closedPort()
    const key = 'sk-proj-NUDGEKEY0123456789abcdefghijklmnop'
    const agent = w.agent(store, createOfflineModel(), {
      auxProvider: createOpenAIProvider({
        apiKey: key,
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'cheap',
        env: {},
        maxRetries: 0,
      }),
      config: agentConfig({ intervalTasks: 1 }),
      onEvent: logTo(logs),
    })
    expect(await agent.run('We use Postgres.')).toContain('Noted')
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(
      /^\[nudge\] skipped: openai: could not connect to http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(ECONNREFUSED/,
    )
    expect(logs[0]).not.toContain(key)
  })
})
