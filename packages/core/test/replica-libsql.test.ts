import { afterAll, beforeAll, expect, it } from 'vitest'
import { EngramError, openStore } from '../src/index.ts'
import { tempDbPath, tempDir } from './helpers.ts'
import { type Child, killIfRunning, spawnScript, waitForLine } from './processes/spawn.ts'

const dir = tempDir()
let primary: Child
let port = ''

beforeAll(async () => {
  primary = spawnScript('recording-server.ts', [])
  port = (await waitForLine(primary, (line) => line.startsWith('PORT '), 600_000)).slice('PORT '.length)
})
afterAll(() => killIfRunning(primary))

// No libSQL primary is reachable here: the replica path is tested up to the wire.
it('an embedded replica reaches its primary with the token and fails in one clear line when the primary is down', async () => {
  const token = 'replica-token-0123456789'
  const error = await openStore({
    url: tempDbPath(dir),
    syncUrl: `http://127.0.0.1:${port}`,
    authToken: token,
  }).catch((e) => e)
  expect(error).toBeInstanceOf(EngramError)
  expect(error.message).toMatch(/^Opening the store: /)
  expect(error.message).not.toContain('\n')
  expect(error.message).not.toContain(token)
  await waitForLine(primary, (line) => line.startsWith('{'), 600_000)
  const requests = primary
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { method: string; path: string; authorization?: string })
  expect(requests.length).toBeGreaterThan(0)
  // The replica asks the primary about itself with the token, then delegates the migration's writes to it.
  expect(requests[0]).toEqual({ method: 'GET', path: '/info', authorization: `Bearer ${token}` })
  expect(requests.some((r) => r.method === 'POST' && r.path.startsWith('/proxy.'))).toBe(true)
})
