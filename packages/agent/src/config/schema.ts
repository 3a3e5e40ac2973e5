import { z } from 'zod'

/**
 * One leaf of the config file. Every issue a leaf raises carries the same text, `expects`, so an error reads
 * `<key> must be <expects> (got <value>)` whatever check failed.
 */
const wholeNumber = (min: number) => {
  const expects = `a whole number of at least ${min}`
  return z.number({ error: expects }).int({ error: expects }).min(min, { error: expects })
}

const ratio = () => {
  const expects = 'a number greater than 0 and at most 1'
  return z.number({ error: expects }).gt(0, { error: expects }).max(1, { error: expects })
}

const nonNegative = () => {
  const expects = 'a number of at least 0'
  return z.number({ error: expects }).min(0, { error: expects })
}

const text = (what: string) => {
  const expects = `a non-empty string (${what})`
  return z.string({ error: expects }).trim().min(1, { error: expects })
}

const bool = () => z.boolean({ error: 'true or false' })

/** Case-insensitive, as SQLite's own PRAGMA values are; the value comes back upper-cased. */
const upperEnum = <T extends string>(values: readonly [T, ...T[]]) => {
  const expects = `one of ${values.join(', ')}`
  return z
    .string({ error: expects })
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(values, { error: expects }))
}

const httpUrl = () => {
  const expects = 'an http(s) url'
  return z.url({ protocol: /^https?$/, error: expects })
}

const JOURNAL_MODES = ['WAL', 'DELETE', 'TRUNCATE', 'PERSIST', 'MEMORY', 'OFF'] as const
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const
const PROVIDERS = ['openai', 'anthropic', 'offline'] as const

const model = z.strictObject({
  model_id: text('a model id'),
  max_tokens: wholeNumber(1),
  context_window: wholeNumber(1),
  price: z.strictObject({
    input: nonNegative(),
    output: nonNegative(),
    cache_read: nonNegative().optional(),
  }),
})

/**
 * The configuration file: the Hermes TOML sections (`[hermes.storage]`, `[context_compressor]`,
 * `[memory_files]`, `[nudge]`) and the JSON settings shape (`api`, `models`, `memory`), with their keys
 * verbatim. Both shapes may appear in one file, TOML or JSON. Every key is optional and unknown keys are
 * refused (they are usually typos).
 */
export const ConfigFileSchema = z
  .strictObject({
    hermes: z
      .strictObject({
        storage: z
          .strictObject({
            db_path: text('a database path or url'),
            journal_mode: upperEnum(JOURNAL_MODES),
            synchronous: upperEnum(SYNCHRONOUS),
            busy_timeout: wholeNumber(0),
            fts_enabled: z.literal(true, {
              error: 'true: Engram always indexes messages for search, false is not supported',
            }),
            driver: z.enum(['better-sqlite3', 'libsql', 'pg', 'pglite'], {
              error: 'one of better-sqlite3, libsql, pg, pglite',
            }),
            auth_token: text('a libSQL/Turso auth token'),
            sync_url: text('the url of the primary of an embedded replica'),
            sync_interval_seconds: wholeNumber(1),
          })
          .partial(),
      })
      .partial(),
    context_compressor: z
      .strictObject({
        trigger_ratio: ratio(),
        head_protect_messages: wholeNumber(0),
        tail_protect_tokens: wholeNumber(0),
        tool_output_char_limit: wholeNumber(1),
        compress_model: text('a model id'),
        repair_tool_pairs: bool(),
        summary_max_tokens: wholeNumber(1),
        reply_budget_tokens: wholeNumber(0),
      })
      .partial(),
    memory_files: z
      .strictObject({
        memory_md_char_limit: wholeNumber(1),
        user_md_char_limit: wholeNumber(1),
        compact_trigger_ratio: ratio(),
      })
      .partial(),
    nudge: z.strictObject({ interval_tasks: wholeNumber(0) }).partial(),
    api: z
      .strictObject({
        provider: z.enum(PROVIDERS, { error: `one of ${PROVIDERS.join(', ')}` }),
        base_url: httpUrl(),
        api_key: text('an API key; prefer the OPENAI_API_KEY or ANTHROPIC_API_KEY environment variable'),
        timeout_seconds: z
          .number({ error: 'a number of seconds greater than 0' })
          .gt(0, { error: 'a number of seconds greater than 0' }),
      })
      .partial(),
    models: z.strictObject({ main: model.partial(), compressor: model.partial() }).partial(),
    memory: z
      .strictObject({
        sqlite_path: text('a database path or url'),
        memory_md_path: text('a file path'),
        user_md_path: text('a file path'),
      })
      .partial(),
    /** Whose sessions and memory these are: the same person in `engram chat`, `engram mcp` and `engram ui`. */
    user: text('a user id'),
    /** `engram mcp`: whose memory the server serves and whether it writes (flags and environment win). */
    mcp: z
      .strictObject({
        user: text('a user id'),
        project: text('a project id'),
        read_only: bool(),
        session_log: bool(),
      })
      .partial(),
  })
  .partial()

export type ConfigFile = z.output<typeof ConfigFileSchema>

function unwrap(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? unwrap(schema.unwrap() as z.ZodType) : schema
}

/** The keys a table of the file accepts, for the message about an unknown key. */
export function knownKeys(path: readonly PropertyKey[]): string[] {
  let node = unwrap(ConfigFileSchema)
  for (const key of path) {
    if (!(node instanceof z.ZodObject)) return []
    node = unwrap(node.shape[key as string] as z.ZodType)
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : []
}
