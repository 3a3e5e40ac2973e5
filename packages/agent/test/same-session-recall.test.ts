import { describe, expect, it } from 'vitest'
import { createOfflineModel } from '../src/index.ts'
import { world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'

const dir = tempDir()

describe('a fact said in a session, with the real agent and the offline model', () => {
  it('is known in that session and after resuming it, and the save says when memory shows it', async () => {
    const w = world(dir)
    const store = await w.open()
    const agent = w.agent(store, createOfflineModel())
    const saved = await agent.run('remember that the staging database listens on port 5433')
    // The snapshot in the system prompt is frozen: the save says so, in the words the user reads.
    expect(saved).toContain('Saved to memory: the staging database listens on port 5433.')
    expect(saved).toContain(
      'It is in memory from the next session on; this session keeps using it from the conversation.',
    )
    await agent.run('The job queue runs on Redis because Celery was too heavy for us.')
    // Same session: neither fact is in this session's system prompt, both are in the conversation.
    const session = await store.getSession(agent.sessionId as string)
    expect(session?.systemPrompt).not.toContain('5433')
    expect(await agent.run('Which port does the staging database listen on?')).toBe(
      'From our conversation: the staging database listens on port 5433',
    )
    expect(await agent.run('What does the job queue run on?')).toBe(
      'From our conversation: The job queue runs on Redis because Celery was too heavy for us.',
    )

    // `--resume latest`: another agent continues the same session (the same frozen prompt).
    const resumed = w.agent(store, createOfflineModel())
    await resumed.resume(agent.sessionId as string)
    expect(await resumed.run('Which port does the staging database listen on?')).toBe(
      'From our conversation: the staging database listens on port 5433',
    )
    // A new session has it from memory; the statement that was never saved is not there.
    await resumed.newSession()
    expect(await resumed.run('Which port does the staging database listen on?')).toBe(
      'From memory: the staging database listens on port 5433',
    )
  })
})
