import { z } from 'zod'
import { type ConnectionOptions, POSTGRES_URL } from './connection.ts'
import { EngramError } from './errors.ts'
import { parse, wholeNumber } from './validation.ts'

/** How a write retries while another connection holds the lock (StoreContext.write). */
export interface RetryPolicy {
  /** Attempts in all, the first included (Hermes uses 15). */
  attempts: number
  minDelayMs: number
  maxDelayMs: number
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 15, minDelayMs: 20, maxDelayMs: 150 }

const JOURNAL_MODES = ['WAL', 'DELETE', 'TRUNCATE', 'PERSIST', 'MEMORY', 'OFF'] as const
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const
const DRIVERS = ['better-sqlite3', 'libsql', 'pg', 'pglite'] as const

export interface StoreOptions extends ConnectionOptions {
  /** How long SQLite itself waits for a lock before the store's own retries start (ms, default 1000). */
  busyTimeout?: number
  /** Default WAL: readers never block the writer, and several processes can share the file. */
  journalMode?: (typeof JOURNAL_MODES)[number]
  /** Default NORMAL: durable in WAL mode across application crashes; FULL costs ~22% of append speed. */
  synchronous?: (typeof SYNCHRONOUS)[number]
  retry?: Partial<RetryPolicy>
  /** Where the drizzle migrations live (default: the ones shipped inside @engram/core). */
  migrationsFolder?: string
  /**
   * Default true. false opens an existing store only: on PostgreSQL a schema that does not exist or holds
   * no Engram tables is refused (DATABASE_MISSING) and nothing is created in it; for an SQLite file, use
   * the url's `mode=rw`.
   */
  create?: boolean
}

/** A case-insensitive choice among upper-case words (PRAGMA values). */
const upperChoice = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string({ error: `must be one of ${values.join(', ')}` })
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(values, { error: `must be one of ${values.join(', ')}` }))

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/

/** The store's own parameters in a PostgreSQL url, which node-postgres does not know. */
const URL_PARAMS = ['schema', 'prepared_statements'] as const
type UrlParam = (typeof URL_PARAMS)[number]

/**
 * A PostgreSQL url's own parameters, taken out of it: `schema=` (`postgres://…/db?schema=app`) and
 * `prepared_statements=false`, so that a url alone, as the CLI's --db and --from take it, can say them.
 * Returns the url node-postgres gets and the values given of each (decoded; a malformed escape reads as
 * an empty value, which the option's rule refuses); undefined when the url has none.
 */
function urlParams(url: string | undefined): { url: string; values: Record<UrlParam, string[]> } | undefined {
  const query = url?.indexOf('?') ?? -1
  if (url === undefined || query < 0 || !POSTGRES_URL.test(url)) return undefined
  const params = url.slice(query + 1).split('&')
  const own = (p: string) => URL_PARAMS.find((name) => p.startsWith(`${name}=`))
  if (!params.some(own)) return undefined
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value)
    } catch {
      return ''
    }
  }
  const values = { schema: [] as string[], prepared_statements: [] as string[] }
  for (const p of params) {
    const name = own(p)
    if (name !== undefined) values[name].push(decode(p.slice(name.length + 1)))
  }
  const rest = params.filter((p) => own(p) === undefined).join('&')
  return { url: rest === '' ? url.slice(0, query) : `${url.slice(0, query)}?${rest}`, values }
}

const settingsSchema = z.object({
  url: z.string({ error: 'must be a path or url' }).optional(),
  driver: z.enum(DRIVERS, { error: `must be one of ${DRIVERS.join(', ')}` }).optional(),
  authToken: z.string().optional(),
  syncUrl: z.string().optional(),
  syncIntervalSeconds: z.number().positive().optional(),
  poolSize: wholeNumber(1).optional(),
  statementTimeoutMs: wholeNumber(1).optional(),
  preparedStatements: z.boolean().optional(),
  readOnly: z.boolean().optional(),
  schema: z
    .string({ error: 'must be a schema name' })
    .regex(SCHEMA_NAME, 'must be a schema name: letters, digits, _ and $, at most 63')
    .optional(),
  busyTimeout: wholeNumber(0).default(1000),
  journalMode: upperChoice(JOURNAL_MODES).default('WAL'),
  synchronous: upperChoice(SYNCHRONOUS).default('NORMAL'),
  retry: z
    .object({ attempts: wholeNumber(1), minDelayMs: wholeNumber(0), maxDelayMs: wholeNumber(0) })
    .partial()
    .optional()
    .transform((retry) => ({ ...DEFAULT_RETRY, ...retry }))
    .refine((retry) => retry.maxDelayMs >= retry.minDelayMs, 'maxDelayMs must be at least minDelayMs'),
  migrationsFolder: z.string().optional(),
  create: z.boolean().default(true),
})

/** Store settings after validation, with every default filled in. */
export type ResolvedStoreSettings = z.output<typeof settingsSchema>

/**
 * Validates the store options (INVALID_CONFIG naming the option) before anything is opened; values reach
 * PRAGMAs only through this.
 */
export function resolveStoreSettings(options: StoreOptions): ResolvedStoreSettings {
  let given = options ?? {}
  // the url's schema= and prepared_statements= move into their options, checked by their rules; errors
  // name the values, never the url (it may hold a password)
  const fromUrl = urlParams(given.url)
  if (fromUrl !== undefined) {
    const { schema: names, prepared_statements: prepared } = fromUrl.values
    const schema = given.schema ?? names[0]
    if (names.some((name) => name !== schema))
      throw new EngramError(
        'INVALID_CONFIG',
        `Opening the store: the url's schema= (${names.join(', ')}) and the schema option (${given.schema ?? 'not given'}) name more than one schema. Name it once.`,
      )
    if (prepared.some((value) => value !== 'true' && value !== 'false'))
      throw new EngramError(
        'INVALID_CONFIG',
        `Opening the store: the url's prepared_statements= must be true or false (got ${prepared.map((v) => JSON.stringify(v)).join(', ')}).`,
      )
    const preparedStatements =
      given.preparedStatements ?? (prepared[0] === undefined ? undefined : prepared[0] === 'true')
    if (prepared.some((value) => (value === 'true') !== preparedStatements))
      throw new EngramError(
        'INVALID_CONFIG',
        `Opening the store: the url's prepared_statements= (${prepared.join(', ')}) and the preparedStatements option (${given.preparedStatements ?? 'not given'}) disagree. Say it once.`,
      )
    given = { ...given, url: fromUrl.url, schema, preparedStatements }
  }
  return parse(settingsSchema, given, 'Opening the store', { code: 'INVALID_CONFIG' })
}
