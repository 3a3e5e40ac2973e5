import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { type EngramConfig, loadConfig } from '@engram/agent'
import { EngramError, openStore, type Store } from '@engram/core'
import type { Command } from 'commander'
import { currentUser, defaultDatabase, legacyDatabaseHint } from './identity.ts'
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
  /** Whose sessions and memory these are (`ENGRAM_USER`, the config's `user`, the OS account name). */
  user(): string
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

/** Refuses a local database file that does not exist (the read-only commands create nothing). */
export function requireDatabase(
  url: string | undefined,
  cwd: string,
  /** Where the path came from, named in the fix. */
  check = '--db (or ENGRAM_DB_URL, db_path)',
): void {
  const path = localDatabasePath(url ?? '')
  if (path === null || existsSync(resolve(cwd, path))) return
  throw new EngramError(
    'DATABASE_PATH',
    `There is no database at ${resolve(cwd, path)}. Check ${check}, or create one with \`engram chat\`, \`engram demo\` or \`engram migrate\`.`,
  )
}

/** The command line's part of the configuration: `--db` (the memory files follow it unless configured). */
export const overridesOf = (options: { db?: string }) => (options.db ? { dbPath: options.db } : {})

export function createContext<O>(command: Command, io: Io): Context<O> {
  const options = command.optsWithGlobals() as O & GlobalOptions
  let config: EngramConfig | undefined
  const ctx: Context<O> = {
    options,
    io,
    out: createOutput(io, Boolean(options.json)),
    config() {
      if (config) return config
      config = loadConfig({
        file: options.config,
        env: io.env,
        cwd: io.cwd,
        overrides: overridesOf(options),
        defaultDatabase: defaultDatabase(io.env),
      })
      const legacy = legacyDatabaseHint(config.storage.url, io.env, io.cwd)
      if (legacy) io.stderr.write(`engram: ${legacy}\n`)
      return config
    },
    user: () => currentUser(io.env, ctx.config()),
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
