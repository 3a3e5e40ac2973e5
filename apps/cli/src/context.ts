import { resolve } from 'node:path'
import { type EngramConfig, loadConfig } from '@engram/agent'
import { openStore, type Store } from '@engram/core'
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
  /** Opens the configured store, runs `use` and closes it, whatever happens. */
  withStore<T>(use: (store: Store) => Promise<T>): Promise<T>
}

const REMOTE_OR_URL = /^[a-z][a-z0-9+.-]*:/i

export function createContext<O>(command: Command, io: Io): Context<O> {
  const options = command.optsWithGlobals() as O & GlobalOptions
  let config: EngramConfig | undefined
  const ctx: Context<O> = {
    options,
    io,
    out: createOutput(io, Boolean(options.json)),
    config() {
      if (config) return config
      config = loadConfig({ file: options.config, env: io.env })
      if (options.db) {
        const url =
          options.db === ':memory:' || REMOTE_OR_URL.test(options.db) ? options.db : resolve(options.db)
        config = { ...config, storage: { ...config.storage, url } }
      }
      return config
    },
    async withStore(use) {
      const store = await openStore(ctx.config().storage)
      try {
        return await use(store)
      } finally {
        await store.close()
      }
    },
  }
  return ctx
}
