import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { betterSqlite3Driver } from '../src/drivers/better-sqlite3.ts'
import { EngramError, openStore, openStoreWithDriver, type StorageDriver } from '../src/index.ts'
import { driversUnderTest, tempDbPath, tempDir } from './helpers.ts'

const dir = tempDir()

/** A real better-sqlite3 connection that refuses the statements `refused` matches, as `message` says. */
function refusing(inner: StorageDriver, refused: RegExp, message: string): StorageDriver {
  const refuse = (sql: string) => {
    if (refused.test(sql)) throw Object.assign(new Error(message), { code: 'SQLITE_ERROR' })
  }
  return {
    ...inner,
    execute: async (statement) => {
      refuse(statement.sql)
      return inner.execute(statement)
    },
    batch: async (statements) => {
      for (const s of statements) refuse(s.sql)
      return inner.batch(statements)
    },
  }
}

/** Answers like an SQLite build compiled without FTS5. */
const withoutFts5 = (inner: StorageDriver) => refusing(inner, /\bfts5\b/i, 'no such module: fts5')

/** Answers like a libSQL server: remote, refusing PRAGMAs that set a value. */
const asLibsqlServer = (inner: StorageDriver): StorageDriver => ({
  ...refusing(inner, /PRAGMA\s+\w+\s*=/i, 'SQL_PARSE_ERROR: unsupported statement'),
  capabilities: { localFile: false, remote: true },
})

describe('openStore', () => {
  it('waits past the busy timeout for another process that holds the write lock of a new file', async () => {
    const path = tempDbPath(dir)
    // another process has the new file's write lock (as while it migrates it) and lets go once we found it
    // locked
    const other = new Database(path)
    other.exec('BEGIN IMMEDIATE')
    let locked = 0
    const inner = betterSqlite3Driver({ path })
    const release = (error: unknown): never => {
      if ((error as { code?: string }).code === 'SQLITE_BUSY' && locked++ === 0) other.exec('COMMIT')
      throw error
    }
    const driver: StorageDriver = {
      ...inner,
      execute: async (statement) => {
        try {
          return await inner.execute(statement)
        } catch (error) {
          return release(error)
        }
      },
      batch: async (statements) => {
        try {
          return await inner.batch(statements)
        } catch (error) {
          return release(error)
        }
      },
    }
    const store = await openStoreWithDriver(driver, { busyTimeout: 10 })
    try {
      expect(locked).toBe(1)
      const session = await store.createSession({ source: 'after the lock' })
      expect((await store.listSessions()).map((s) => s.id)).toEqual([session.id])
    } finally {
      await store.close()
      other.close()
    }
  })

  it('says clearly when SQLite has no FTS5, and creates nothing', async () => {
    const path = tempDbPath(dir)
    const error = await openStoreWithDriver(withoutFts5(betterSqlite3Driver({ path }))).catch((e) => e)
    expect(error).toBeInstanceOf(EngramError)
    expect(error.code).toBe('FTS5_MISSING')
    expect(error.message).toMatch(/no FTS5 module/)
    const store = await openStore({ url: path })
    expect(await store.listSessions()).toEqual([])
    await store.close()
  })

  it('migrates a remote database whose server refuses PRAGMAs that set a value, leaving its header alone', async () => {
    const path = tempDbPath(dir)
    const store = await openStoreWithDriver(asLibsqlServer(betterSqlite3Driver({ path })))
    const s = await store.createSession({ source: 'remote' })
    await store.appendMessage(s.id, { role: 'user', content: 'stored on the server' })
    expect((await store.search('server')).length).toBe(1)
    await store.close()
    const reopened = await openStoreWithDriver(asLibsqlServer(betterSqlite3Driver({ path })))
    expect((await reopened.getMessages(s.id)).map((m) => m.content)).toEqual(['stored on the server'])
    await reopened.close()
  })

  for (const driver of driversUnderTest()) {
    it(`refuses a directory and a path under a plain file (${driver})`, async () => {
      const refuse = async (url: string) => {
        const error = await openStore({ url, driver }).catch((e) => e)
        expect(error).toBeInstanceOf(EngramError)
        expect(error.code).toBe('DATABASE_PATH')
      }
      await refuse(dir)
      const notADir = join(dir, `plain-file-${driver}`)
      writeFileSync(notADir, 'x')
      await refuse(join(notADir, 'engram.db'))
    })

    it(`creates the folder of a new database file (${driver})`, async () => {
      const store = await openStore({ url: join(dir, `nested-${driver}`, 'deeper', 'engram.db'), driver })
      expect(await store.listSessions()).toEqual([])
      await store.close()
    })

    it(`keeps a :memory: database for the life of the store (${driver})`, async () => {
      const store = await openStore({ url: ':memory:', driver })
      const s = await store.createSession({ source: 'cli' })
      await store.appendMessage(s.id, { role: 'user', content: 'ephemeral' })
      await store.appendMessage(s.id, { role: 'assistant', content: 'still here' })
      expect((await store.getMessages(s.id)).map((m) => m.content)).toEqual(['ephemeral', 'still here'])
      expect((await store.search('ephemeral')).length).toBe(1)
      await store.close()
    })
  }

  it('refuses a remote url on the better-sqlite3 driver and a replica without libSQL', async () => {
    const remote = await openStore({ url: 'libsql://db.example.turso.io', driver: 'better-sqlite3' }).catch(
      (e) => e,
    )
    expect(remote.code).toBe('INVALID_ARGUMENT')
    const replica = await openStore({
      url: tempDbPath(dir),
      driver: 'better-sqlite3',
      syncUrl: 'libsql://x',
    }).catch((e) => e)
    expect(replica.code).toBe('INVALID_ARGUMENT')
  })

  it('rejects invalid settings before touching the file', async () => {
    const path = tempDbPath(dir)
    const cases: [Parameters<typeof openStore>[0], RegExp][] = [
      [{ busyTimeout: -5 }, /busyTimeout/],
      [{ busyTimeout: 1.5 }, /busyTimeout/],
      [{ journalMode: 'WAL; DROP TABLE sessions' as never }, /journalMode must be one of WAL/],
      [{ synchronous: 'sometimes' as never }, /synchronous must be one of/],
      [{ retry: { attempts: 0 } }, /retry.attempts/],
      [
        { driver: 'sqlite3' as never },
        /driver must be one of better-sqlite3, libsql, pg, pglite \(got "sqlite3"\)/,
      ],
      [{ busyTimeout: Number.NaN }, /busyTimeout/],
    ]
    for (const [options, message] of cases) {
      const error = await openStore({ url: path, ...options }).catch((e) => e)
      expect(error.code).toBe('INVALID_CONFIG')
      expect(error.message).toMatch(message)
    }
    expect(existsSync(path)).toBe(false)
  })
})
