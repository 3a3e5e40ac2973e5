import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A real PostgreSQL server in a temp folder, for the tests: its url, and ways to restart and stop it. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string
  /** `pg_ctl restart -m immediate`: the server dies without a checkpoint and recovers from its WAL. */
  restartImmediately(): void
  stop(): void
}

/** The folder of PostgreSQL's server programs (Debian installs them per version under /usr/lib/postgresql). */
function binDir(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : []
  const found = versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'pg_ctl')))
  if (!found)
    throw new Error(
      'PostgreSQL server programs not found under /usr/lib/postgresql: install them with apt-get install -y postgresql.',
    )
  return found
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/**
 * Starts a new PostgreSQL cluster (initdb in a temp folder, trust authentication on 127.0.0.1, a free
 * port, its socket in the same folder). initdb refuses to run as root, so as root the cluster belongs to
 * the `postgres` user that Debian's package creates.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir()
  const dir = mkdtempSync(join(tmpdir(), 'engram-pg-'))
  const data = join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const { uid, gid } = postgresUser()
    chownSync(dir, uid, gid)
  }
  const run = (program: string, args: string[]) => {
    const [command, all] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
      : [join(bin, program), args]
    const result = spawnSync(command, all, { cwd: dir, encoding: 'utf8' })
    if (result.status !== 0)
      throw new Error(`${program} failed (${result.status}): ${result.stderr || result.stdout}`)
  }
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'])
  const port = await freePort()
  const ctl = (...args: string[]) =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c fsync=off -c synchronous_commit=on`,
      ...args,
    ])
  ctl('-w', 'start')
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restartImmediately: () => ctl('-w', '-m', 'immediate', 'restart'),
    stop: () => {
      try {
        ctl('-w', '-m', 'fast', 'stop')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}
