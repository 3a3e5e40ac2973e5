import { mkdirSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { StorageDriver } from './driver.ts'
import { EngramError } from './errors.ts'

export type DriverName = 'better-sqlite3' | 'libsql'

export interface ConnectionOptions {
  /**
   * A path or `file:` url (default `./data/engram.db`, its folder is created), `:memory:`,
   * or a remote libSQL url: `libsql://`, `http(s)://`, `ws(s)://`.
   */
  url?: string
  /** `better-sqlite3` is the default for local files, `libsql` for remote urls and embedded replicas. */
  driver?: DriverName
  authToken?: string
  /** Makes a local file an embedded replica of this remote database (libSQL only). */
  syncUrl?: string
  syncIntervalSeconds?: number
}

export const DEFAULT_DATABASE_PATH = './data/engram.db'

const REMOTE_URL = /^(libsql|https?|wss?):\/\//i

interface LocalTarget {
  kind: 'local'
  path: string
}
interface RemoteTarget {
  kind: 'remote'
  url: string
}

function resolveTarget(url: string): LocalTarget | RemoteTarget {
  if (REMOTE_URL.test(url)) return { kind: 'remote', url }
  if (url === ':memory:' || url === 'file::memory:') return { kind: 'local', path: ':memory:' }
  const path = url.startsWith('file://') ? new URL(url).pathname : url.replace(/^file:/, '')
  if (path.trim() === '') {
    throw new EngramError(
      'DATABASE_PATH',
      `The database url "${url}" names no file. Pass a path such as ./data/engram.db.`,
    )
  }
  return { kind: 'local', path: resolve(path) }
}

function prepareLocalFile(path: string): void {
  if (path === ':memory:') return
  let isDirectory = false
  try {
    isDirectory = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false
    if (!isDirectory) mkdirSync(dirname(path), { recursive: true })
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
}

const isModuleMissing = (error: unknown) =>
  ['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes((error as { code?: string } | null)?.code ?? '')

async function openDriver(name: DriverName, target: LocalTarget | RemoteTarget, options: ConnectionOptions) {
  if (name === 'better-sqlite3') {
    const { betterSqlite3Driver } = await import('./drivers/better-sqlite3.ts')
    return betterSqlite3Driver({ path: (target as LocalTarget).path })
  }
  const { libsqlDriver } = await import('./drivers/libsql.ts')
  return libsqlDriver({
    url: target.kind === 'remote' ? target.url : target.path,
    authToken: options.authToken,
    syncUrl: options.syncUrl,
    syncIntervalSeconds: options.syncIntervalSeconds,
  })
}

/** Opens the driver a url asks for; only that driver's native module is loaded. */
export async function connect(options: ConnectionOptions): Promise<StorageDriver> {
  const target = resolveTarget(options.url ?? DEFAULT_DATABASE_PATH)
  const driverName: DriverName =
    options.driver ?? (target.kind === 'remote' || options.syncUrl ? 'libsql' : 'better-sqlite3')
  if (target.kind === 'remote' && driverName !== 'libsql') {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `The url ${target.url} is a remote database, which only the libsql driver can open. Drop driver: '${driverName}' or use a local path.`,
    )
  }
  if (options.syncUrl && driverName !== 'libsql') {
    throw new EngramError('INVALID_ARGUMENT', 'Embedded replicas (syncUrl) need driver: "libsql".')
  }
  if (target.kind === 'local') prepareLocalFile(target.path)

  try {
    return await openDriver(driverName, target, options)
  } catch (cause) {
    if (!isModuleMissing(cause)) throw cause
    const packages = driverName === 'better-sqlite3' ? 'better-sqlite3' : 'libsql @libsql/client'
    throw new EngramError(
      'DRIVER_MISSING',
      `The ${driverName} driver could not be loaded (${(cause as Error).message}). Install it: pnpm add ${packages}.`,
      { cause },
    )
  }
}
