import { mkdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { StorageDriver } from './driver.ts'
import { EngramError } from './errors.ts'

export type DriverName = 'better-sqlite3' | 'libsql' | 'pg' | 'pglite'

export interface ConnectionOptions {
  /**
   * A path or `file:` url (default `./data/engram.db`, its folder is created), `:memory:`,
   * or a remote libSQL url: `libsql://`, `http(s)://`, `ws(s)://`. A leading `~/` is your home folder.
   * `file:` urls are read as SQLite reads them (`file:rel.db`, `file:///abs/a%20b.db`) and take one query
   * parameter, `mode`: `ro` (read-only), `rw` (the file must exist) or `rwc` (the default).
   * PostgreSQL: `postgres://user:password@host:5432/database?sslmode=require` (the `pg` driver), or
   * `pglite:./folder` / `pglite:memory` for PGlite in this process.
   */
  url?: string
  /**
   * `better-sqlite3` is the default for local files, `libsql` for remote urls and embedded replicas, `pg`
   * for `postgres://` urls and `pglite` for `pglite:` ones.
   */
  driver?: DriverName
  authToken?: string
  /** Makes a local file an embedded replica of this remote database (libSQL only). */
  syncUrl?: string
  syncIntervalSeconds?: number
  /** PostgreSQL: connections in this process's pool (default 10). */
  poolSize?: number
  /** PostgreSQL: the server cancels a statement running longer than this (ms); default unlimited. */
  statementTimeoutMs?: number
  /** PostgreSQL: the schema holding the store's tables (default `public`), so apps can share a database. */
  schema?: string
  /**
   * PostgreSQL: prepare the store's hottest statement (the keyword search) once per connection (default
   * true). Pass false behind a pooler that does not keep prepared statements (PgBouncer in transaction
   * mode before 1.21).
   */
  preparedStatements?: boolean
  /**
   * Opens the database read-only: a local file with `mode=ro` (it must exist; nothing is written to it),
   * PostgreSQL and PGlite with read-only transactions. A remote libSQL url cannot be opened so: refused.
   */
  readOnly?: boolean
}

export const DEFAULT_DATABASE_PATH = './data/engram.db'

const REMOTE_URL = /^(libsql|https?|wss?):\/\//i

/** How a local file is opened, as SQLite's `mode` url parameter names it. */
type OpenMode = 'ro' | 'rw' | 'rwc'
const OPEN_MODES: readonly string[] = ['ro', 'rw', 'rwc'] satisfies OpenMode[]

interface LocalTarget {
  kind: 'local'
  path: string
  mode: OpenMode
}
interface RemoteTarget {
  kind: 'remote'
  url: string
}
interface PostgresTarget {
  kind: 'postgres' | 'pglite'
  url: string
}
type Target = LocalTarget | RemoteTarget | PostgresTarget

export const POSTGRES_URL = /^postgres(ql)?:\/\//i
const PGLITE_URL = /^pglite:/i

const badUrl = (url: string, problem: string) =>
  new EngramError('DATABASE_PATH', `The database url "${url}" ${problem}.`)

/**
 * A `file:` url as SQLite reads it: `file:path`, `file:/abs`, `file:///abs` or `file://localhost/abs`, with
 * percent-escapes decoded and `?mode=` the only query parameter.
 */
function parseFileUrl(url: string): { path: string; mode: OpenMode } {
  const [beforeFragment = ''] = url.slice('file:'.length).split('#', 1)
  const query = beforeFragment.indexOf('?')
  let path = query < 0 ? beforeFragment : beforeFragment.slice(0, query)
  if (path.startsWith('//')) {
    const slash = path.indexOf('/', 2)
    const host = path.slice(2, slash < 0 ? undefined : slash)
    if (host !== '' && host.toLowerCase() !== 'localhost')
      throw badUrl(
        url,
        `names the host "${host}"; a file: url names a local file. Write file:///path/to/engram.db`,
      )
    path = slash < 0 ? '' : path.slice(slash)
  }
  try {
    path = decodeURIComponent(path)
  } catch {
    throw badUrl(url, 'has a malformed percent-escape. Write %25 for a literal %')
  }
  let mode: OpenMode = 'rwc'
  for (const [key, value] of new URLSearchParams(query < 0 ? '' : beforeFragment.slice(query + 1))) {
    if (key !== 'mode')
      throw badUrl(
        url,
        `has the query parameter "${key}", which Engram does not support. The only one is mode=ro|rw|rwc`,
      )
    if (!OPEN_MODES.includes(value)) throw badUrl(url, `has mode=${value}. Use mode=ro, mode=rw or mode=rwc`)
    mode = value as OpenMode
  }
  return { path, mode }
}

/** `~` and `~/…` are the home folder, as in a shell; `~name/…` is refused rather than made a folder named `~name`. */
function expandHome(path: string, url: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1))
  if (path.startsWith('~'))
    throw badUrl(
      url,
      "starts with ~name, which Engram does not expand (only ~/ is). Write the folder's full path",
    )
  return path
}

function resolveTarget(url: string): Target {
  if (POSTGRES_URL.test(url)) return { kind: 'postgres', url }
  if (PGLITE_URL.test(url)) return { kind: 'pglite', url: url.slice('pglite:'.length) }
  if (REMOTE_URL.test(url)) return { kind: 'remote', url }
  if (url === ':memory:' || url === 'file::memory:') return { kind: 'local', path: ':memory:', mode: 'rwc' }
  const { path, mode } = /^file:/i.test(url) ? parseFileUrl(url) : { path: url, mode: 'rwc' as const }
  if (path.trim() === '' || path.includes('\0')) {
    throw new EngramError(
      'DATABASE_PATH',
      `The database url "${url}" names no file. Pass a path such as ./data/engram.db.`,
    )
  }
  return { kind: 'local', path: resolve(expandHome(path, url)), mode }
}

function prepareLocalFile({ path, mode }: LocalTarget, readOnly: boolean): void {
  if (path === ':memory:') return
  let isDirectory = false
  let exists = false
  try {
    const stats = statSync(path, { throwIfNoEntry: false })
    exists = stats !== undefined
    isDirectory = stats?.isDirectory() ?? false
    if (!isDirectory && mode === 'rwc') mkdirSync(dirname(path), { recursive: true })
  } catch (cause) {
    throw new EngramError(
      'DATABASE_PATH',
      `Cannot use ${path} for the database: ${(cause as Error).message}. Choose a file path in a writable folder.`,
      { cause },
    )
  }
  if (isDirectory) {
    throw new EngramError(
      'DATABASE_PATH',
      `The database path ${path} is a directory. Pass the path of a file inside it, such as ${path}/engram.db.`,
    )
  }
  if (!exists && readOnly) {
    throw new EngramError(
      'DATABASE_PATH',
      `The database ${path} does not exist, and a read-only store does not create it. Check the path, or create the database by opening it once without read-only.`,
    )
  }
  if (!exists && mode !== 'rwc') {
    throw new EngramError(
      'DATABASE_PATH',
      `The database ${path} does not exist, and mode=${mode} does not create it. Check the path, or drop ?mode=${mode} to create the database.`,
    )
  }
}

const isModuleMissing = (error: unknown) =>
  ['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes((error as { code?: string } | null)?.code ?? '')

async function openDriver(name: DriverName, target: Target, options: ConnectionOptions) {
  const { poolSize, statementTimeoutMs, schema, preparedStatements } = options
  if (name === 'pg') {
    const { pgDriver } = await import('./drivers/pg.ts')
    return pgDriver({
      url: target.kind === 'postgres' ? target.url : '',
      poolSize,
      statementTimeoutMs,
      schema,
      preparedStatements,
      readonly: options.readOnly,
    })
  }
  if (name === 'pglite') {
    const { pgliteDriver } = await import('./drivers/pglite.ts')
    const folder = target.kind === 'pglite' ? target.url : ''
    const database = folder === '' || folder === 'memory' ? 'memory://' : resolve(expandHome(folder, folder))
    return pgliteDriver({ database, statementTimeoutMs, schema, readonly: options.readOnly })
  }
  if (name === 'better-sqlite3') {
    const { betterSqlite3Driver } = await import('./drivers/better-sqlite3.ts')
    const { path, mode } = target as LocalTarget
    return betterSqlite3Driver({ path, readonly: mode === 'ro' })
  }
  const { libsqlDriver } = await import('./drivers/libsql.ts')
  return libsqlDriver({
    url: target.kind === 'local' ? target.path : target.url,
    readonly: target.kind === 'local' && target.mode === 'ro',
    authToken: options.authToken,
    syncUrl: options.syncUrl,
    syncIntervalSeconds: options.syncIntervalSeconds,
  })
}

/** Opens the driver a url asks for; only that driver's native module is loaded. */
export async function connect(options: ConnectionOptions): Promise<StorageDriver> {
  const target = resolveTarget(options.url ?? DEFAULT_DATABASE_PATH)
  // A PostgreSQL url names its driver; only that driver opens it, and it opens nothing else.
  const urlDriver = target.kind === 'postgres' ? 'pg' : target.kind === 'pglite' ? 'pglite' : undefined
  const driverName: DriverName =
    options.driver ?? urlDriver ?? (target.kind === 'remote' || options.syncUrl ? 'libsql' : 'better-sqlite3')
  if (driverName !== (urlDriver ?? (driverName === 'pg' || driverName === 'pglite' ? '' : driverName))) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `The ${driverName} driver cannot open ${options.url ?? DEFAULT_DATABASE_PATH}: pg opens postgres:// urls, pglite opens pglite: urls, better-sqlite3 and libsql open SQLite files. Drop the driver option to let the url choose.`,
    )
  }
  if (target.kind === 'remote' && driverName !== 'libsql') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `The url ${target.url} is a remote database, which only the libsql driver can open. Drop driver: '${driverName}' or use a local path.`,
    )
  }
  if (options.syncUrl && driverName !== 'libsql') {
    throw new EngramError('INVALID_ARGUMENT', 'Embedded replicas (syncUrl) need driver: "libsql".')
  }
  if (options.readOnly && target.kind === 'remote') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `A remote libSQL database (${target.url.replace(/\?.*$/, '')}) cannot be opened read-only. Open a local file, an embedded replica's file or PostgreSQL read-only, or drop readOnly.`,
    )
  }
  if (target.kind === 'local' && options.readOnly && target.path !== ':memory:') target.mode = 'ro'
  if (target.kind === 'local') prepareLocalFile(target, options.readOnly === true)

  try {
    return await openDriver(driverName, target, options)
  } catch (cause) {
    if (!isModuleMissing(cause)) throw cause
    const packages = {
      'better-sqlite3': 'better-sqlite3',
      libsql: 'libsql @libsql/client',
      pg: 'pg',
      pglite: '@electric-sql/pglite',
    }[driverName]
    throw new EngramError(
      'DRIVER_MISSING',
      `The ${driverName} driver could not be loaded (${(cause as Error).message}). Install it: pnpm add ${packages}.`,
      { cause },
    )
  }
}
