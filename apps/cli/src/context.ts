import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { type EngramConfig, loadConfig } from '@engram/agent'
import { EngramError, openStore, type Store } from '@engram/core'
import type { Command } from 'commander'
import { createOutput, type Io, type Output } from './output.ts'

/** The options every command accepts (`--db`, `--config`, `--json`). */
interface GlobalOptions {
  db?: string
  config?: string
  json?: boolean
}

/** What a command's action needs: its options merged with the global ones, the output and the config. */
export interface Context<O = Record<string, unknown>> {
  options: O & GlobalOptions
  io: Io
  out: Output
  /** The effective configuration, `--db` applied; loaded on first use. */
  config(): EngramConfig
  /**
   * Opens the configured store, runs `use` and closes it, whatever happens. `create: false` (the read-only
   * commands) refuses a local database file that does not exist instead of creating it.
   */
  withStore<T>(use: (store: Store) => Promise<T>, options?: { create?: boolean }): Promise<T>
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i

/** The file a database url names on this machine, or null for `:memory:` and remote urls. */
export function localDatabasePath(url: string): string | null {
  if (url === ':memory:') return null
  if (/^file:/i.test(url)) return url.replace(/^file:(\/\/)?/i, '').replace(/\?.*$/, '') || null
  return URL_SCHEME.test(url) ? null : url
}

/**
 * `--db` applied to a loaded configuration: a path is resolved against the working folder (a url is kept as
 * given), and memory files that sit beside the configured database (the default) move beside this one, so
 * two databases never share MEMORY.md and USER.md by accident. Memory files configured elsewhere stay.
 */
export function withDatabase(config: EngramConfig, db: string, cwd: string): EngramConfig {
  const url = localDatabasePath(db) === db && db !== '' ? resolve(cwd, db) : db
  const next = { ...config, storage: { ...config.storage, url } }
  const before = localDatabasePath(config.storage.url ?? '')
  const after = localDatabasePath(url)
  const { memoryPath, userPath } = config.memoryFiles
  const beside = (path: string, name: string) =>
    before !== null && path === join(dirname(resolve(cwd, before)), name)
  if (after === null || !beside(memoryPath, 'MEMORY.md') || !beside(userPath, 'USER.md')) return next
  const folder = dirname(resolve(cwd, after))
  return {
    ...next,
    memoryFiles: {
      ...config.memoryFiles,
      memoryPath: join(folder, 'MEMORY.md'),
      userPath: join(folder, 'USER.md'),
    },
  }
}

/** Refuses a local database file that does not exist (the read-only commands create nothing). */
function requireDatabase(url: string | undefined, cwd: string): void {
  const path = localDatabasePath(url ?? '')
  if (path === null || existsSync(resolve(cwd, path))) return
  throw new EngramError(
    'DATABASE_PATH',
    `There is no database at ${resolve(cwd, path)}. Check --db (or ENGRAM_DB_URL, db_path), or create one with \`engram chat\`, \`engram demo\` or \`engram migrate\`.`,
  )
}

export function createContext<O>(command: Command, io: Io): Context<O> {
  const options = command.optsWithGlobals() as O & GlobalOptions
  let config: EngramConfig | undefined
  const ctx: Context<O> = {
    options,
    io,
    out: createOutput(io, Boolean(options.json)),
    config() {
      if (config) return config
      const loaded = loadConfig({ file: options.config, env: io.env, cwd: io.cwd })
      config = options.db ? withDatabase(loaded, options.db, io.cwd) : loaded
      return config
    },
    async withStore(use, { create = true } = {}) {
      const { storage } = ctx.config()
      if (!create) requireDatabase(storage.url, io.cwd)
      const store = await openStore(storage)
      try {
        return await use(store)
      } finally {
        await store.close()
      }
    },
  }
  return ctx
}
