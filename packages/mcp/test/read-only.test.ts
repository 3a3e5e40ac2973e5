import { execFile } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { call, serve, textOf, withStore, workspace } from './helpers.ts'

const ENGRAM_BIN = fileURLToPath(new URL('../../../apps/cli/bin/engram.js', import.meta.url))

/** The database file's bytes and mtime, and the -wal's bytes (null when there is none). */
function snapshot(db: string) {
  const wal = `${db}-wal`
  return {
    bytes: readFileSync(db).toString('base64'),
    mtime: statSync(db).mtimeMs,
    wal: existsSync(wal) ? readFileSync(wal).toString('base64') : null,
  }
}

/** Waits until the process is gone (the transport's close escalates to signals; a read-only server must not care). */
async function gone(pid: number | null) {
  if (pid === null) return
  for (;;) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

it('engram mcp --read-only searches and reads without changing a byte of the database', {
  timeout: 600_000,
}, async () => {
  const ws = workspace()
  let sessionId = ''
  await withStore(ws, async (store) => {
    const session = await store.createSession({ source: 'cli', userId: 'alice', title: 'Narwhal tusks' })
    await store.appendMessages(session.id, [
      { role: 'user', content: 'How long do narwhal tusks grow?' },
      { role: 'assistant', content: 'Narwhal tusks grow up to three metres.' },
    ])
    await store.addEpisode({
      sessionId: session.id,
      summary: 'Narwhal tusks reach three metres.',
      importance: 7,
    })
    sessionId = session.id
  })
  const before = snapshot(ws.db)
  const served = await serve(ws, ['--user', 'alice', '--read-only'])
  const pid = served.transport.pid
  // Search hits on the episode (which a writable store counts), a session read, a list.
  for (let i = 0; i < 3; i++)
    expect(textOf(await call(served.client, 'session_search', { query: 'narwhal' }))).toContain(
      'Narwhal tusks reach three metres.',
    )
  expect(textOf(await call(served.client, 'session_read', { session_id: sessionId }))).toContain(
    'three metres',
  )
  expect(textOf(await call(served.client, 'sessions_list', {}))).toContain('Narwhal tusks')
  expect(served.stderr()).toContain('(read-only)')
  await served.client.close()
  await gone(pid)
  const after = snapshot(ws.db)
  expect(after.bytes === before.bytes, 'the database file changed').toBe(true)
  expect(after.mtime).toBe(before.mtime)
  // SQLite may leave an empty -wal beside a WAL database it opened; no page was written to it.
  expect(after.wal ?? '').toBe(before.wal ?? '')
  await withStore(ws, async (store) => {
    expect((await store.getEpisodes(sessionId)).map((e) => e.hitCount)).toEqual([0])
  })
})

it('engram mcp --read-only on a missing database fails with a clear error and creates nothing', {
  timeout: 600_000,
}, async () => {
  const ws = workspace()
  const missing = join(ws.dir, 'no', 'such.db')
  // stdin closed at once: a server that started would serve nothing and exit 0.
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [ENGRAM_BIN, 'mcp', '--read-only', '--user', 'alice', '--db', missing],
      { cwd: ws.dir, env: { PATH: process.env.PATH ?? '', HOME: ws.dir } },
      (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }),
    )
    child.stdin?.end()
  })
  expect(result.code).not.toBe(0)
  expect(result.stderr).toContain(
    `The database ${missing} does not exist, and a read-only store does not create it`,
  )
  expect(existsSync(join(ws.dir, 'no'))).toBe(false)
})
