// The full-size load-and-fault run of `engram mcp --http` (docs/mcp-http.md#load-and-faults): 50 clients
// of 10 users across 4 server processes on one PostgreSQL this script starts, 3 servers SIGKILLed and
// replaced and one `pg_ctl restart -m immediate` while they run. Prints the report; exits 1 when an
// acknowledged write is missing or doubled, or a user saw another's data. `pnpm mcp:load [clients] [servers]`.
import { startPostgres } from '../packages/core/test/postgres-server.ts'
import { runLoad } from '../packages/mcp/test/load/http-load.ts'

const clients = Number(process.argv[2] ?? 50)
const servers = Number(process.argv[3] ?? 4)
const pg = await startPostgres()
try {
  const report = await runLoad(pg, {
    servers,
    clients,
    users: 10,
    rounds: 10,
    kills: 3,
    restartPostgres: true,
    stdioRounds: 30,
  })
  console.log(JSON.stringify(report, null, 2))
  const ok = report.missing.length === 0 && report.duplicated.length === 0 && report.leaks.length === 0
  console.log(
    `${clients} clients, ${servers} servers, ${report.killed} SIGKILLs, ${report.restarts} PostgreSQL restart: ${report.acknowledged} writes acknowledged, ${report.storedOnce} stored once, ${report.leaks.length} leaks. p95 ms over HTTP ${JSON.stringify(report.p95.http)}, over stdio ${JSON.stringify(report.p95.stdio)}`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  pg.stop()
}
