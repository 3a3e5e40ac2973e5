import { isSummaryMessage } from '@engram/compressor'
import { describe, expect, it } from 'vitest'
import { createOfflineModel } from '../src/index.ts'
import { agentConfig, logTo, toolPairingProblems, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'

const dir = tempDir()
const FACT = 'The billing service is written in Go and deployed to Fly.io region ams.'

const config = agentConfig({
  main: { contextWindow: 3_000 },
  compressor: { replyBudgetTokens: 0, tailProtectTokens: 300, headProtectMessages: 3 },
})

describe('compression in the loop', () => {
  it('a long session crosses the trigger, compresses into a child session, and the compressed fact is still found', async () => {
    const w = world(dir, 'long')
    const store = await w.open()
    const logs: string[] = []
    const agent = w.agent(store, createOfflineModel(), { config, onEvent: logTo(logs) })
    await agent.run('Hello, I am setting up the billing project.')
    const root = agent.sessionId as string
    await agent.run('We are on a tight schedule this quarter.')
    await agent.run(FACT)
    let turns = 0
    while (agent.sessionId === root && turns < 80) {
      turns++
      await agent.run(
        `Is build step ${turns} of the pipeline cached between runs of the nightly job on the shared runners?`,
      )
    }
    expect(agent.sessionId).not.toBe(root)
    expect(turns).toBeGreaterThan(3)

    const compressedLines = logs.filter((l) => l.includes('compressed=yes'))
    expect(compressedLines).toHaveLength(1)
    expect(compressedLines[0]).toMatch(/^\[ctx\] tokens=\d+ window=3000 ratio=0\.\d\d compressed=yes/)
    const [, tokens] = /tokens=(\d+)/.exec(compressedLines[0] as string) ?? []
    expect(Number(tokens)).toBeGreaterThanOrEqual(3_000 * 0.75)

    const child = await store.getSession(agent.sessionId as string)
    expect(child?.parentSessionId).toBe(root)
    expect(child?.systemPrompt).toBe((await store.getSession(root))?.systemPrompt)
    expect((await store.getSession(root))?.endReason).toBe('compression')
    const [episode] = await store.getEpisodes(root)
    expect(episode?.summary).toContain(FACT)
    expect(episode?.importance).toBe(8) // an environment fact: "deployed", "service"
    const childHistory = await store.getMessages(agent.sessionId as string)
    expect(childHistory.filter(isSummaryMessage)).toHaveLength(1)
    expect(toolPairingProblems(childHistory)).toEqual([])
    expect((await store.getMessages(root)).length).toBeGreaterThan(childHistory.length)
    expect(agent.lastContext?.ratio).toBeLessThan(0.75)

    // In the same conversation the fact comes from the summary in the context…
    expect(await agent.run('Which region is the billing service deployed to?')).toContain('Fly.io region ams')
    // …from another session through session_search over the archived parent…
    const other = w.agent(store, createOfflineModel(), { config })
    expect(await other.run('What did I say about the billing service?')).toContain('Fly.io region ams')
    // …and the episode is searchable.
    const hits = await store.search('billing', { includeEpisodes: true })
    expect(hits.some((hit) => hit.kind === 'episode' && hit.sessionId === root)).toBe(true)

    // Resuming the root follows the chain to its tip.
    const resumed = w.agent(store, createOfflineModel(), { config })
    expect((await resumed.resume(root)).id).toBe(agent.sessionId)
  })

  it('compressNow compresses a short conversation on demand; under the trigger nothing is logged', async () => {
    const w = world(dir, 'manual')
    const store = await w.open()
    const logs: string[] = []
    const agent = w.agent(store, createOfflineModel(), {
      config: agentConfig({ compressor: { tailProtectTokens: 50, headProtectMessages: 1 } }),
      onEvent: logTo(logs),
    })
    expect(await agent.compressNow()).toBeNull()
    for (const tool of ['pnpm', 'vitest', 'biome', 'tsdown', 'turbo', 'drizzle', 'knip', 'tsx']) {
      await agent.run(`We use ${tool} in this repository.`)
    }
    expect(logs).toEqual([])
    const before = agent.sessionId
    const report = await agent.compressNow()
    expect(report?.status, JSON.stringify(report)).toBe('compressed')
    expect(agent.sessionId).not.toBe(before)
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/compressed=yes/)
    const usage = await store.usage()
    expect(usage.byPurpose.compression?.calls).toBe(1)
  })
})
