import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pgliteDriver } from '../src/drivers/pglite.ts'
import {
  adoptSessions,
  countUnownedSessions,
  createAccessToken,
  listAccessTokens,
  listUnownedSessions,
  openStore,
  openStoreWithDriver,
  revokeAccessToken,
  type Store,
  verifyAccessToken,
} from '../src/index.ts'
import { newPglite } from './pglite-template.ts'

let pglite: PGlite
beforeAll(async () => {
  pglite = await newPglite()
})
afterAll(() => pglite?.close())

const engines: [string, () => Promise<Store>][] = [
  ['sqlite', () => openStore({ url: join(mkdtempSync(join(tmpdir(), 'engram-tokens-')), 'e.db') })],
  ['pglite', () => openStoreWithDriver(pgliteDriver({ database: pglite, schema: 'tokens_test' }))],
]

describe.each(engines)('access tokens and session owners on %s', (_name, open) => {
  it('a token is verified by its secret only, until it is revoked or expires; the store keeps no secret', async () => {
    const store = await open()
    try {
      const now = 1_800_000_000_000
      const alice = await createAccessToken(store, { userId: 'alice', project: 'web' }, now)
      const bob = await createAccessToken(
        store,
        { userId: 'bob', readOnly: true, expiresAt: now + 1000 },
        now,
      )
      expect(alice.secret).toMatch(/^engram_[A-Za-z0-9_-]{43}$/)
      expect(await verifyAccessToken(store, alice.secret, now)).toEqual(alice.token)
      expect((await verifyAccessToken(store, bob.secret, now))?.readOnly).toBe(true)
      expect(await verifyAccessToken(store, bob.secret, now + 1000)).toBeNull()
      expect(await verifyAccessToken(store, `${alice.secret}x`, now)).toBeNull()
      expect(await verifyAccessToken(store, 'engram_', now)).toBeNull()
      const stored = JSON.stringify(await store.db.query.accessTokens.findMany())
      expect(stored).not.toContain(alice.secret.slice(7))
      expect((await listAccessTokens(store)).map((t) => t.userId).sort()).toEqual(['alice', 'bob'])
      expect(await revokeAccessToken(store, alice.token.id, now)).toBe(true)
      expect(await revokeAccessToken(store, alice.token.id, now)).toBe(false)
      expect(await verifyAccessToken(store, alice.secret, now)).toBeNull()
      await expect(createAccessToken(store, { userId: '../x' })).rejects.toThrow(/is not an id/)
    } finally {
      await store.close()
    }
  })

  it('sessions without a user are counted, listed and adopted; owned ones keep their user', async () => {
    const store = await open()
    try {
      const before = await countUnownedSessions(store)
      const a = await store.createSession({ source: 'cli' })
      const b = await store.createSession({ source: 'cli' })
      const owned = await store.createSession({ source: 'cli', userId: 'carol' })
      await store.appendMessage(a.id, { role: 'user', content: 'zebra crossing notes' })
      expect(await countUnownedSessions(store)).toBe(before + 2)
      expect((await listUnownedSessions(store, 1000)).map((s) => s.id)).toEqual(
        expect.arrayContaining([a.id, b.id]),
      )
      expect(await adoptSessions(store, 'dave', { ids: [a.id, owned.id] })).toEqual([a.id])
      expect((await store.getSession(owned.id))?.userId).toBe('carol')
      expect((await store.search('zebra', { userId: 'dave' })).map((h) => h.sessionId)).toContain(a.id)
      expect(await adoptSessions(store, 'dave')).toContain(b.id)
      expect(await countUnownedSessions(store)).toBe(0)
    } finally {
      await store.close()
    }
  })
})
