import { afterAll, beforeAll, expect, it } from 'vitest'
import { type PostgresServer, startPostgres } from '../../core/test/postgres-server.ts'
import { runLoad } from './load/http-load.ts'

let pg: PostgresServer
beforeAll(async () => {
  pg = await startPostgres()
})
afterAll(() => pg?.stop())

// The small size of `pnpm mcp:load` (scripts/mcp-http-load.ts runs 50 clients on 4 servers): counts only,
// no timing asserts; the p95 figures are printed for the record.
it('clients across engram mcp --http processes on one PostgreSQL, with a server SIGKILLed and PostgreSQL restarted immediately: every acknowledged write stored once, no user sees another’s data', async () => {
  const report = await runLoad(pg, {
    servers: 2,
    clients: 6,
    users: 3,
    rounds: 6,
    kills: 1,
    restartPostgres: true,
    stdioRounds: 6,
  })
  console.log(`[mcp http-load] ${JSON.stringify(report)}`)
  expect(report.killed).toBe(1)
  expect(report.restarts).toBe(1)
  expect(report.acknowledged).toBe(6 * 6)
  expect(report.missing).toEqual([])
  expect(report.duplicated).toEqual([])
  expect(report.storedOnce).toBe(report.acknowledged)
  expect(report.leaks).toEqual([])
}, 900_000)
