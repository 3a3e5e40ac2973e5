import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createOfflineModel } from '../src/index.ts'
import { world } from './agent-helpers.ts'

const dir = mkdtempSync(join(tmpdir(), 'engram-resume-scope-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('resume() stays within the agent’s user', () => {
  it('refuses another user’s session by id, and resumes the user’s own', async () => {
    const w = world(dir)
    const store = await w.open()
    const alice = w.agent(store, createOfflineModel(), { userId: 'alice' })
    await alice.run('remember that my locker code is 4711')
    const aliceSession = alice.sessionId as string
    const bob = w.agent(store, createOfflineModel(), { userId: 'bob' })
    await expect(bob.resume(aliceSession)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' })
    expect(bob.sessionId).toBeNull()
    const again = w.agent(store, createOfflineModel(), { userId: 'alice' })
    expect((await again.resume(aliceSession)).id).toBe(aliceSession)
  })
})

describe('resume() reopens an ended session', () => {
  it('a resumed session is live again, so a prune of old ended sessions keeps it', async () => {
    const w = world(dir)
    const store = await w.open()
    const first = w.agent(store, createOfflineModel(), { userId: 'carol' })
    await first.run('note that the build server is called tarn')
    const id = first.sessionId as string
    await store.endSession(id, 'user_exit')
    const again = w.agent(store, createOfflineModel(), { userId: 'carol' })
    expect(await again.resume(id)).toMatchObject({ id, endedAt: null, endReason: null })
    expect(await store.getSession(id)).toMatchObject({ endedAt: null })
    expect(await store.pruneSessions({ olderThanDays: 0 })).toBe(0)
    await again.run('and the deploy target is fjord')
    expect(await store.getSession(id)).toMatchObject({ endedAt: null })
  })
})
