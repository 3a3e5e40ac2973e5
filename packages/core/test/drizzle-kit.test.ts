import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openStore } from '../src/index.ts'
import { tempDbPath, tempDir } from './helpers.ts'
import { exitWithin, REPO_ROOT, spawnProcess } from './processes/spawn.ts'

const DRIZZLE_KIT = join(REPO_ROOT, 'node_modules/.bin/drizzle-kit')
const journal = JSON.parse(
  readFileSync(join(REPO_ROOT, 'packages/core/drizzle/meta/_journal.json'), 'utf8'),
) as {
  entries: { tag: string; when: number }[]
}
const MIGRATIONS = journal.entries.length

/** Runs `drizzle-kit migrate` from the repository root against `path` (drizzle.config.ts reads ENGRAM_DB_PATH). */
async function drizzleKitMigrate(path: string): Promise<void> {
  const child = spawnProcess(DRIZZLE_KIT, ['migrate'], { ENGRAM_DB_PATH: path })
  const exit = await exitWithin(child, 600_000)
  expect(exit, child.describe()).toEqual({ code: 0, signal: null })
}

function appliedMigrations(path: string): { hash: string; created_at: number }[] {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at').all() as {
      hash: string
      created_at: number
    }[]
  } finally {
    db.close()
  }
}

describe('drizzle-kit and the runtime migrator agree', () => {
  const dir = tempDir('engram-drizzle-kit-')

  it('the journal lists the migrations the tests expect to find', () => {
    expect(MIGRATIONS).toBeGreaterThan(0)
    for (const entry of journal.entries)
      expect(existsSync(join(REPO_ROOT, 'packages/core/drizzle', `${entry.tag}.sql`))).toBe(true)
  })

  it('openStore applies nothing on a database drizzle-kit migrated, and the store works on it', async () => {
    const path = tempDbPath(dir)
    await drizzleKitMigrate(path)
    const before = appliedMigrations(path)
    expect(before.map((m) => Number(m.created_at))).toEqual(journal.entries.map((e) => e.when))

    const store = await openStore({ url: path })
    try {
      const session = await store.createSession({ source: 'drizzle-kit' })
      const message = await store.appendMessage(session.id, {
        role: 'user',
        content: 'The kubernetes rollout stalled on the canary 金丝雀 pods',
      })
      const english = await store.search('kubernetes canary')
      expect(english.map((h) => h.messageId)).toEqual([message.id])
      const chinese = await store.search('金丝雀')
      expect(chinese.map((h) => h.messageId)).toEqual([message.id])
      expect((await store.checkIntegrity()).ok).toBe(true)
    } finally {
      await store.close()
    }
    expect(appliedMigrations(path)).toEqual(before)
  })

  it('drizzle-kit migrate finds a database created by openStore up to date', async () => {
    const path = tempDbPath(dir)
    const store = await openStore({ url: path })
    const session = await store.createSession({ source: 'runtime' })
    const message = await store.appendMessage(session.id, {
      role: 'user',
      content: 'written before drizzle-kit ran',
    })
    await store.close()
    const before = appliedMigrations(path)
    expect(before).toHaveLength(MIGRATIONS)

    await drizzleKitMigrate(path)
    expect(appliedMigrations(path)).toEqual(before)

    const reopened = await openStore({ url: path })
    try {
      expect((await reopened.getStoredMessages(session.id)).map((m) => m.id)).toEqual([message.id])
      expect((await reopened.search('drizzle')).map((h) => h.messageId)).toEqual([message.id])
      expect((await reopened.checkIntegrity()).ok).toBe(true)
    } finally {
      await reopened.close()
    }
  })
})
