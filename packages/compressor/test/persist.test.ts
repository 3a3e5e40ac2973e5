import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ChatMessage, openStore, type Store } from '@engram/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compress } from '../src/compress.ts'
import { persistCompression } from '../src/persist.ts'
import { isSummaryMessage } from '../src/summary.ts'
import { codingConversation, scriptedSummarizer } from './helpers.ts'

const dir = mkdtempSync(join(tmpdir(), 'engram-compressor-'))
let store: Store

beforeAll(async () => {
  store = await openStore({ url: join(dir, 'store.db') })
})
afterAll(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const options = {
  window: 32_000,
  summarizer: scriptedSummarizer('## Goal\nFix modules'),
  config: { tailProtectTokens: 3_000 },
}

async function storedSession() {
  const parent = await store.createSession({
    source: 'cli',
    model: 'gpt-4o',
    userId: 'u-1',
    title: 'Fix modules',
    systemPrompt: 'You are a coding agent.',
  })
  const stored = await store.appendMessages(parent.id, codingConversation(30))
  return { parent, stored }
}

describe('persistCompression (real store)', () => {
  it('ends the parent, continues in a child and stores the summary as an episode over the replaced ids', async () => {
    const { parent, stored } = await storedSession()
    const result = await compress(stored, options)
    const { session, episode } = await persistCompression(store, parent.id, result)

    expect(await store.getSession(parent.id)).toMatchObject({ endReason: 'compression' })
    expect(session).toMatchObject({
      parentSessionId: parent.id,
      source: 'cli',
      model: 'gpt-4o',
      userId: 'u-1',
      title: 'Fix modules',
      systemPrompt: 'You are a coding agent.',
    })
    expect(await store.resolveTip(parent.id)).toBe(session.id)

    const child = await store.getMessages(session.id)
    expect(child.map((m) => m.content)).toEqual(result.messages.map((m) => m.content))
    expect(child.map((m) => m.tool_calls ?? null)).toEqual(result.messages.map((m) => m.tool_calls ?? null))
    expect(child.filter(isSummaryMessage)).toHaveLength(1)

    const range = result.report.summarizedIdRange
    expect(range).not.toBeNull()
    const ids = stored.map((m) => m.id)
    expect(range?.first).toBe(ids[4])
    expect(episode).toMatchObject({
      sessionId: parent.id,
      summary: '## Goal\nFix modules',
      firstMessageId: range?.first,
      lastMessageId: range?.last,
    })
    expect(await store.getEpisodes(parent.id)).toHaveLength(1)
    // The archived turns stay in the parent, unchanged.
    expect(await store.getStoredMessages(parent.id)).toHaveLength(stored.length)
  })

  it('refuses a compression that did not happen, and an unknown session', async () => {
    const { parent, stored } = await storedSession()
    const unchanged = await compress(stored.slice(0, 2), { ...options, window: 100_000 })
    await expect(persistCompression(store, parent.id, unchanged)).rejects.toThrow(/was unchanged/)
    const compressed = await compress(stored, options)
    await expect(persistCompression(store, 'missing', compressed)).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    })
    expect(await store.getSession(parent.id)).toMatchObject({ endedAt: null })
  })

  it('writes nothing when any part of the compressed history is invalid', async () => {
    const { parent, stored } = await storedSession()
    const result = await compress(stored, options)
    const broken = {
      ...result,
      messages: [...result.messages, { role: 'tool', content: 'orphan' } as unknown as ChatMessage],
    }
    await expect(persistCompression(store, parent.id, broken)).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
    })
    expect(await store.getSession(parent.id)).toMatchObject({ endedAt: null, endReason: null })
    expect(await store.resolveTip(parent.id)).toBe(parent.id)
    expect(await store.getEpisodes(parent.id)).toEqual([])
  })
})
