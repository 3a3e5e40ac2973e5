import { readFileSync } from 'node:fs'
import { openStore } from '@engram/core'
import { describe, expect, it } from 'vitest'
import { exitWithin, killIfRunning } from '../../core/test/processes/spawn.ts'
import { spawnAgentScript, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'

const dir = tempDir()

/** One agent process on the shared files: its answers, in order, and the sessions it wrote to. */
async function agentProcess(
  w: ReturnType<typeof world>,
  plan: { resume?: string; turns: string[] },
): Promise<{ answers: string[]; sessions: string[] }> {
  const child = spawnAgentScript('agent-turns.ts', [
    w.dbPath,
    w.memory.memoryPath,
    w.memory.userPath,
    JSON.stringify(plan),
  ])
  try {
    const exit = await exitWithin(child, 600_000)
    expect(exit.code, child.describe()).toBe(0)
  } finally {
    killIfRunning(child)
  }
  const lines = child.stdout().split('\n')
  return {
    answers: lines.filter((l) => l.startsWith('ANSWER ')).map((l) => JSON.parse(l.slice(7)) as string),
    sessions: [...new Set(lines.filter((l) => l.startsWith('SESSION ')).map((l) => l.slice(8)))],
  }
}

describe('end to end with the offline model, across processes', () => {
  it('facts taught in one process come back in the next from the memory files and from session_search (English and Chinese)', async () => {
    const w = world(dir, 'e2e')
    const teach = await agentProcess(w, {
      turns: [
        'Remember that the production database is PostgreSQL 16 on port 5433.',
        '记住：我们的部署服务器在新加坡',
        'Our CI pipeline takes about 12 minutes and runs on self-hosted runners.',
        '我们的缓存用的是 Redis 7，端口 6380。',
      ],
    })
    expect(teach.answers).toHaveLength(4)
    expect(readFileSync(w.memory.memoryPath, 'utf8')).toContain('PostgreSQL 16 on port 5433')
    expect(readFileSync(w.memory.memoryPath, 'utf8')).toContain('我们的部署服务器在新加坡')

    const ask = await agentProcess(w, {
      turns: [
        'What database do we use in production?',
        '部署服务器在哪里？',
        'What did I say about the CI pipeline?',
        '上次我们的缓存用的是什么？',
      ],
    })
    expect(ask.sessions).toHaveLength(1)
    expect(ask.sessions[0]).not.toBe(teach.sessions[0])
    const [database, server, pipeline, cache] = ask.answers
    expect(database).toMatch(/^From memory: .*PostgreSQL 16 on port 5433/)
    expect(server).toMatch(/^From memory: .*新加坡/)
    expect(pipeline).toMatch(/^From a past conversation: .*12 minutes/)
    expect(cache).toMatch(/^From a past conversation: .*Redis 7，端口 6380/)

    // The answers from the past really went through the tool: its calls and results are in the new session.
    const store = await openStore({ url: w.dbPath })
    try {
      const messages = await store.getMessages(ask.sessions[0] as string)
      const searches = messages
        .flatMap((m) => m.tool_calls ?? [])
        .filter((c) => c.function.name === 'session_search')
      expect(searches.map((c) => JSON.parse(c.function.arguments).query)).toEqual(['ci pipeline', '缓存用'])
      const usage = await store.usage()
      // Two turns with a tool (2 calls each) and two without (1) in each process.
      expect(usage.byPurpose.main?.calls).toBe(2 * (2 * 2 + 2))
    } finally {
      await store.close()
    }
  })

  it('a resumed process continues the same session', async () => {
    const w = world(dir, 'resume')
    const first = await agentProcess(w, { turns: ['Our staging host is stage-2.internal.'] })
    const second = await agentProcess(w, { resume: 'latest', turns: ['And the API listens on port 9090.'] })
    expect(second.sessions).toEqual(first.sessions)
    const store = await openStore({ url: w.dbPath })
    try {
      const messages = await store.getMessages(first.sessions[0] as string)
      expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'Our staging host is stage-2.internal.',
        'And the API listens on port 9090.',
      ])
    } finally {
      await store.close()
    }
  })
})
