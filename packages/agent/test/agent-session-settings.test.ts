import { describe, expect, it } from 'vitest'
import { createOfflineModel } from '../src/index.ts'
import { agentConfig, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'

const dir = tempDir()

describe('a session records the model settings it runs with', () => {
  it('a new session records its window, reply budget and model; the child of a compression keeps them', async () => {
    const w = world(dir, 'records')
    const store = await w.open()
    const model = createOfflineModel()
    const config = agentConfig({
      main: { contextWindow: 6_000, maxTokens: 700 },
      compressor: { tailProtectTokens: 50, headProtectMessages: 1 },
    })
    const agent = w.agent(store, model, { config })
    for (const tool of ['pnpm', 'vitest', 'biome', 'tsdown', 'turbo', 'drizzle', 'knip', 'tsx'])
      await agent.run(`We use ${tool} in this repository.`)
    const root = agent.sessionId as string
    const recorded = { contextWindow: 6_000, maxTokens: 700, model: model.model, provider: 'offline' }
    expect((await store.getSession(root))?.modelConfig).toEqual(recorded)

    expect((await agent.compressNow())?.status).toBe('compressed')
    expect(agent.sessionId).not.toBe(root)
    expect((await store.getSession(agent.sessionId as string))?.modelConfig).toEqual(recorded)
  })

  it('resuming records the window it runs with from then on, keeping the keys another tool recorded', async () => {
    const w = world(dir, 'resumes')
    const store = await w.open()
    const model = createOfflineModel()
    // written by another tool: a window of its own, and a key the agent knows nothing of
    const foreign = await store.createSession({
      source: 'cli',
      modelConfig: { contextWindow: 6_000, base_url: 'http://127.0.0.1:8080/v1' },
    })
    const bare = await store.createSession({ source: 'cli' })
    const agent = w.agent(store, model, { config: agentConfig({ main: { contextWindow: 32_000 } }) })
    const resumed = await agent.resume(foreign.id)
    const expected = {
      contextWindow: 32_000,
      maxTokens: 512,
      model: model.model,
      provider: 'offline',
      base_url: 'http://127.0.0.1:8080/v1',
    }
    expect(resumed.modelConfig).toEqual(expected)
    expect((await store.getSession(foreign.id))?.modelConfig).toEqual(expected)
    await agent.resume(bare.id)
    expect((await store.getSession(bare.id))?.modelConfig).toEqual({
      contextWindow: 32_000,
      maxTokens: 512,
      model: model.model,
      provider: 'offline',
    })
  })
})
