import { execFileSync, type SpawnSyncReturns, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SyncConnection, syncSqliteDriver } from '../src/drivers/sync-sqlite.ts'
import { EngramError, openStore, openStoreWithDriver, type Store } from '../src/index.ts'
import { tempDbPath, tempDir } from './helpers.ts'
import { REPO_ROOT, TSX_LOADER } from './processes/spawn.ts'

const dir = tempDir('engram-faults-')

async function failure(promise: Promise<unknown>): Promise<EngramError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EngramError)
  return error as EngramError
}

/** Text that does not compress and carries a findable word. */
const bulky = (i: number) =>
  `message ${i} marker${i} ${Array.from({ length: 300 }, () => Math.random().toString(36).slice(2)).join(' ')}`

// ---------------------------------------------------------------------------------------------- full disk
const mountPoint = join(dir, 'small-disk')
let mountError: string | null = null
beforeAll(() => {
  mkdirSync(mountPoint)
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'pipe' })
  } catch (error) {
    mountError = String((error as { stderr?: Buffer }).stderr ?? error).trim()
  }
})
afterAll(() => {
  if (mountError === null) execFileSync('umount', [mountPoint])
})

describe('a full disk (a 2 MB tmpfs mounted by the test)', () => {
  it('refuses appends with DISK_FULL, keeps reads working, writes nothing half, and writes again once space is freed', async (ctx) => {
    if (mountError !== null) {
      ctx.skip(`cannot mount a size-limited tmpfs here (${mountError}); run as root to test a full disk`)
    }
    const ballast = join(mountPoint, 'ballast')
    writeFileSync(ballast, Buffer.alloc(700 * 1024, 1))
    const store = await openStore({ url: join(mountPoint, 'engram.db') })
    try {
      const { id } = await store.createSession({ source: 'disk' })
      const acknowledged: string[] = []
      let refused: EngramError | null = null
      for (let i = 0; i < 2000 && refused === null; i++) {
        const content = bulky(i)
        try {
          await store.appendMessage(id, { role: 'user', content })
          acknowledged.push(content)
        } catch (error) {
          refused = error as EngramError
        }
      }
      expect(acknowledged.length).toBeGreaterThan(10)
      expect(refused).toBeInstanceOf(EngramError)
      expect(refused?.code).toBe('DISK_FULL')
      expect(refused?.message).toMatch(/Appending a message: .*full.*free/i)

      // A batch that does not fit is refused whole.
      const batch = Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: bulky(9000 + i) }))
      expect((await failure(store.appendMessages(id, batch))).code).toBe('DISK_FULL')
      // Reads and searches still work, and hold exactly what was acknowledged.
      expect((await store.getMessages(id)).map((m) => m.content)).toEqual(acknowledged)
      const hits = await store.search('marker3', { includeEpisodes: false })
      expect(hits.map((h) => h.messageId)).toEqual([4])
      expect((await store.getSession(id))?.messageCount).toBe(acknowledged.length)

      rmSync(ballast)
      const after = await store.appendMessages(id, batch)
      expect(after).toHaveLength(5)
      expect((await store.getMessages(id)).map((m) => m.content)).toEqual([
        ...acknowledged,
        ...batch.map((m) => m.content),
      ])
      expect((await store.search('marker9004', { includeEpisodes: false }))[0]?.messageId).toBe(after[4]?.id)
      expect((await store.checkIntegrity()).ok).toBe(true)
    } finally {
      await store.close()
    }
  })
})

// ---------------------------------------------------------------------------------------------- read-only
async function seeded(): Promise<{ path: string; sessionId: string }> {
  const path = tempDbPath(dir)
  const store = await openStore({ url: path })
  const { id } = await store.createSession({ source: 'ro' })
  await store.appendMessages(id, [
    { role: 'user', content: 'the archive is read only' },
    { role: 'assistant', content: '只读的数据库也能搜索' },
  ])
  await store.close()
  return { path, sessionId: id }
}

describe('a read-only database', () => {
  it('opened read-only (SQLITE_OPEN_READONLY): writes fail with DATABASE_READONLY, reads and searches work', async () => {
    const { path, sessionId } = await seeded()
    const connection = new Database(path, { readonly: true }) as unknown as SyncConnection
    const store: Store = await openStoreWithDriver(
      syncSqliteDriver('better-sqlite3', connection, { localFile: true, remote: false }),
    )
    try {
      const refused = await failure(store.appendMessage(sessionId, { role: 'user', content: 'nope' }))
      expect(refused.code).toBe('DATABASE_READONLY')
      expect(refused.message).toMatch(/^Appending a message: the database is read-only .*permissions/)
      expect((await failure(store.deleteSession(sessionId))).code).toBe('DATABASE_READONLY')
      expect((await store.getMessages(sessionId)).map((m) => m.content)).toEqual([
        'the archive is read only',
        '只读的数据库也能搜索',
      ])
      expect(await store.search('数据库', { includeEpisodes: false })).toHaveLength(1)
      expect((await store.getSession(sessionId))?.messageCount).toBe(2)
    } finally {
      await store.close()
    }
  })

  it.skipIf(process.getuid?.() !== 0)(
    'a file with mode 0444 opened by another user (the test runs as root and drops to uid 65534): writes fail with DATABASE_READONLY, reads work',
    async () => {
      const { path, sessionId } = await seeded()
      chmodSync(dir, 0o777) // the other user may create the -wal and -shm files, not write the database
      chmodSync(path, 0o444)
      // The other user must reach the repository to load the code: a clone inside a private folder (mktemp -d
      // makes it 0700) gets search permission for the length of the test, and its mode back after.
      const opened: [string, number][] = []
      for (let folder = REPO_ROOT; folder !== dirname(folder); folder = dirname(folder)) {
        const mode = statSync(folder).mode & 0o7777
        if ((mode & 0o001) === 0) {
          chmodSync(folder, mode | 0o001)
          opened.push([folder, mode])
        }
      }
      let child: SpawnSyncReturns<string>
      try {
        child = spawnSync(
          process.execPath,
          [
            '--import',
            TSX_LOADER,
            fileURLToPath(new URL('./processes/faults-readonly-store.ts', import.meta.url)),
            path,
            sessionId,
            'archive',
          ],
          { cwd: REPO_ROOT, uid: 65534, gid: 65534, encoding: 'utf8', timeout: 600_000 },
        )
      } finally {
        for (const [folder, mode] of opened) chmodSync(folder, mode)
      }
      expect(child.status, child.stderr).toBe(0)
      const report = JSON.parse(child.stdout.trim().split('\n').at(-1) as string)
      expect(report.append).toMatchObject({ ok: false, code: 'DATABASE_READONLY' })
      expect(report.create).toMatchObject({ ok: false, code: 'DATABASE_READONLY' })
      expect(report.messages.value).toHaveLength(2)
      expect(report.search).toEqual({ ok: true, value: 1 })
    },
  )
})
