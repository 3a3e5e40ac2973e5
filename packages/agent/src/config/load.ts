import { existsSync, readFileSync } from 'node:fs'
import { dirname, extname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CompressorConfig, resolveConfig } from '@engram/compressor'
import { EngramError, type StoreOptions } from '@engram/core'
import { parse as parseToml, TomlError } from 'smol-toml'
import type { z } from 'zod'
import { baseUrlProblem } from '../providers/endpoint.ts'
import {
  DEFAULT_COMPACT_TRIGGER_RATIO,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_DATABASE_PATH,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_MODEL_IDS,
  DEFAULT_NUDGE_INTERVAL_TASKS,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_USER_CHAR_LIMIT,
  MEMORY_FILE_NAME,
  USER_FILE_NAME,
} from './defaults.ts'
import { maskUrl } from './mask.ts'
import { type ConfigFile, ConfigFileSchema, knownKeys } from './schema.ts'
import type { ApiConfig, EngramConfig, MemoryFilesConfig, ModelConfig } from './types.ts'

/** The files looked for in the working directory when no file is named, in this order. */
const CONFIG_FILE_NAMES = ['engram.toml', 'engram.json'] as const

const SECRET_KEYS = new Set(['api_key', 'auth_token'])
const URL_WITH_SCHEME = /^[a-z][a-z0-9+.-]*:/i

type Env = Readonly<Record<string, string | undefined>>

export interface LoadConfigOptions {
  /**
   * A file named by the user (`--config`); it must exist. `.json` is read as JSON, anything else as TOML.
   * `null` reads no file at all (the defaults and the environment only).
   */
  file?: string | null
  /** Where `engram.toml` / `engram.json` are looked for and relative defaults are resolved (default: cwd). */
  cwd?: string
  /** The environment (default `process.env`); it overrides the file. */
  env?: Env
  /** Command-line values; they override the environment and the file. */
  overrides?: ConfigOverrides
  /**
   * The database when nothing names one (default core's `./data/engram.db` under `cwd`): the CLI passes
   * the user's data folder, so every command of one person finds the same store from any folder.
   */
  defaultDatabase?: string
}

/** What a command line may set on top of the file and the environment (`--db`, `--model`). */
interface ConfigOverrides {
  /**
   * The database: a path (relative to `cwd`) or a url (`libsql://…`, `file:…`, `:memory:`). Wins over
   * `ENGRAM_DB_URL` and the file; the memory files follow it unless the file names their paths.
   */
  dbPath?: string
  /** The main model id. Wins over `HERMES_MODEL` and the file, and, like them, is also the compressor's model unless one is configured. */
  model?: string
}

const invalid = (message: string, cause?: unknown) =>
  new EngramError('INVALID_CONFIG', message, cause === undefined ? undefined : { cause })

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''

function readConfigFile(path: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    throw invalid(
      `Cannot read the config file ${path} (${firstLine(cause)}). Check the path, or run without one to use the defaults.`,
      cause,
    )
  }
  const json = extname(path).toLowerCase() === '.json'
  try {
    return json ? JSON.parse(text) : parseToml(text)
  } catch (cause) {
    const at = syntaxPosition(cause, text)
    const where = at ? ` at line ${at.line}, column ${at.column}` : ''
    const reason = firstLine(cause).replace(/^Invalid TOML document: /, '')
    throw invalid(
      `${path} is not valid ${json ? 'JSON' : 'TOML'}${where}: ${reason}. Fix the syntax there.`,
      cause,
    )
  }
}

/** Line and column (1-based) of a parse error: smol-toml reports them, JSON.parse a character position. */
function syntaxPosition(error: unknown, text: string): { line: number; column: number } | null {
  if (error instanceof TomlError) return { line: error.line, column: error.column }
  const position = /at position (\d+)/.exec(firstLine(error))?.[1]
  if (position === undefined) return null
  const before = text.slice(0, Number(position))
  const lineStart = before.lastIndexOf('\n') + 1
  return { line: before.split('\n').length, column: before.length - lineStart + 1 }
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let node = raw
  for (const key of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[key]
  return node
}

function shown(value: unknown, path: readonly PropertyKey[]): string {
  const key = String(path.at(-1))
  if (SECRET_KEYS.has(key)) return 'a value that is not shown'
  const json = JSON.stringify(typeof value === 'string' ? maskUrl(value) : value) ?? String(value)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}

/** One line naming the key and what it expects; a secret's value is never repeated. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const key = issue.path.join('.')
  if (issue.code === 'unrecognized_keys') {
    const unknown = [...issue.path, issue.keys[0]].join('.')
    return `${unknown} is not a known key (known: ${knownKeys(issue.path).join(', ')}); check its spelling`
  }
  const value = valueAt(raw, issue.path)
  if (issue.code === 'invalid_type' && issue.expected === 'object') {
    return key === ''
      ? 'the file must hold a table of sections ([hermes.storage], [context_compressor], ...)'
      : `${key} must be a table of keys (got ${shown(value, issue.path)})`
  }
  return `${key} must be ${issue.message} (got ${shown(value, issue.path)})`
}

function parseFile(raw: unknown, path: string): ConfigFile {
  const result = ConfigFileSchema.safeParse(raw)
  if (result.success) return result.data
  const [issue] = result.error.issues
  throw invalid(`Invalid configuration in ${path}: ${describeIssue(issue as z.core.$ZodIssue, raw)}.`)
}

/** Local paths are resolved against `base`; urls (`libsql://`, `file:`, ...) and `:memory:` are kept. */
function place(value: string, base: string): string {
  return value === ':memory:' || URL_WITH_SCHEME.test(value) ? value : resolve(base, value)
}

/** Two keys that set the same thing must agree when both are given. */
function either<T>(a: T | undefined, aName: string, b: T | undefined, bName: string, where: string) {
  if (a !== undefined && b !== undefined && a !== b) {
    throw invalid(
      `Invalid configuration in ${where}: ${aName} and ${bName} set the same thing to different values; keep one of them.`,
    )
  }
  return a ?? b
}

/** `value` without its undefined fields (optional config fields are absent, never `undefined`). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}

/** Reads an environment variable; empty counts as unset, and each one used is noted (its name only). */
function envReader(env: Env, used: string[]) {
  return (name: string): string | undefined => {
    const value = env[name]?.trim()
    if (!value) return undefined
    used.push(name)
    return value
  }
}

/** A base URL that the providers can use, or INVALID_CONFIG naming where it was set (its secrets masked). */
function checkBaseUrl(value: string | undefined, name: string, keyVariable: string): string | undefined {
  const problem = value === undefined ? null : baseUrlProblem(value, keyVariable)
  if (problem) throw invalid(`${name} ${maskUrl(value as string)} ${problem}.`)
  return value
}

interface Context {
  file: ConfigFile
  where: string
  fileDir: string
  cwd: string
  fromEnv: (name: string) => string | undefined
  overrides: ConfigOverrides
  defaultDatabase: string
}

function resolveStorage({
  file,
  where,
  fileDir,
  cwd,
  fromEnv,
  overrides,
  defaultDatabase,
}: Context): StoreOptions {
  const storage = file.hermes?.storage ?? {}
  const fileUrl = either(
    file.memory?.sqlite_path,
    'memory.sqlite_path',
    storage.db_path,
    'hermes.storage.db_path',
    where,
  )
  const envUrl = overrides.dbPath?.trim() || fromEnv('ENGRAM_DB_URL')
  const url = envUrl ? place(envUrl, cwd) : fileUrl ? place(fileUrl, fileDir) : place(defaultDatabase, cwd)
  return withoutUndefined({
    url,
    driver: storage.driver,
    authToken: fromEnv('ENGRAM_DB_AUTH_TOKEN') ?? storage.auth_token,
    syncUrl: storage.sync_url,
    syncIntervalSeconds: storage.sync_interval_seconds,
    journalMode: storage.journal_mode,
    synchronous: storage.synchronous,
    busyTimeout: storage.busy_timeout,
  })
}

function resolveApi({ file, where, fromEnv }: Context): ApiConfig {
  const openaiKey = fromEnv('OPENAI_API_KEY')
  const anthropicKey = openaiKey ? undefined : fromEnv('ANTHROPIC_API_KEY')
  const provider =
    file.api?.provider ?? (openaiKey || file.api?.api_key ? 'openai' : anthropicKey ? 'anthropic' : 'offline')
  const timeoutSeconds = file.api?.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS
  if (provider === 'offline') return { provider, timeoutSeconds }
  const envName = provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'
  const envKey = provider === 'openai' ? openaiKey : (anthropicKey ?? fromEnv('ANTHROPIC_API_KEY'))
  const apiKey = envKey ?? file.api?.api_key
  if (!apiKey) {
    throw invalid(
      `Invalid configuration in ${where}: api.provider is ${provider} but no API key is set. Export ${envName} or set api.api_key.`,
    )
  }
  const baseEnv = provider === 'openai' ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL'
  return withoutUndefined({
    provider,
    baseUrl:
      checkBaseUrl(fromEnv(baseEnv), baseEnv, envName) ??
      checkBaseUrl(file.api?.base_url, `api.base_url in ${where}`, envName),
    apiKey,
    apiKeySource: envKey ? envName : `api.api_key in ${where}`,
    timeoutSeconds,
  })
}

function resolveModel(
  section: NonNullable<ConfigFile['models']>['main'],
  modelId: string,
  maxTokens: number,
): ModelConfig {
  const price = section?.price
  return withoutUndefined({
    modelId,
    maxTokens: section?.max_tokens ?? maxTokens,
    contextWindow: section?.context_window ?? DEFAULT_CONTEXT_WINDOW,
    price:
      price && withoutUndefined({ input: price.input, output: price.output, cacheRead: price.cache_read }),
  })
}

function resolveCompressor(file: ConfigFile): CompressorConfig {
  const table = file.context_compressor ?? {}
  return resolveConfig({
    triggerRatio: table.trigger_ratio,
    headProtectMessages: table.head_protect_messages,
    tailProtectTokens: table.tail_protect_tokens,
    toolOutputCharLimit: table.tool_output_char_limit,
    summaryMaxTokens: table.summary_max_tokens,
    repairToolPairs: table.repair_tool_pairs,
    replyBudgetTokens: table.reply_budget_tokens,
  })
}

/**
 * The folder the memory files live in when the file names no path: the database's own folder, so two
 * databases never share memory files by accident. A database that is not a local file (a remote url,
 * `:memory:`) has no folder; its memory files go to `./data` under `cwd`.
 */
function memoryFolderFor(databaseUrl: string, cwd: string): string {
  if (databaseUrl.startsWith('file://')) {
    try {
      return dirname(fileURLToPath(databaseUrl.replace(/[?#].*$/, '')))
    } catch {
      return resolve(cwd, dirname(DEFAULT_DATABASE_PATH)) // a file url on another host
    }
  }
  // `file:sub/x.db` is relative (as libSQL reads it), not `file:///sub/x.db`.
  if (databaseUrl.startsWith('file:')) {
    return dirname(resolve(cwd, databaseUrl.slice('file:'.length).replace(/[?#].*$/, '')))
  }
  if (databaseUrl === ':memory:' || URL_WITH_SCHEME.test(databaseUrl)) {
    return resolve(cwd, dirname(DEFAULT_DATABASE_PATH))
  }
  return dirname(resolve(cwd, databaseUrl))
}

function resolveMemoryFiles({ file, fileDir, cwd }: Context, databaseUrl: string): MemoryFilesConfig {
  const limits = file.memory_files ?? {}
  const folder = memoryFolderFor(databaseUrl, cwd)
  const at = (value: string | undefined, name: string) =>
    value ? place(value, fileDir) : resolve(folder, name)
  return {
    memoryPath: at(file.memory?.memory_md_path, MEMORY_FILE_NAME),
    userPath: at(file.memory?.user_md_path, USER_FILE_NAME),
    memoryCharLimit: limits.memory_md_char_limit ?? DEFAULT_MEMORY_CHAR_LIMIT,
    userCharLimit: limits.user_md_char_limit ?? DEFAULT_USER_CHAR_LIMIT,
    compactTriggerRatio: limits.compact_trigger_ratio ?? DEFAULT_COMPACT_TRIGGER_RATIO,
  }
}

function findFile(options: LoadConfigOptions, cwd: string): string | null {
  if (options.file === null) return null
  if (options.file !== undefined) {
    const path = resolve(cwd, options.file)
    if (!existsSync(path)) {
      throw invalid(`The config file ${path} does not exist. Check the path, or omit it to use the defaults.`)
    }
    return path
  }
  for (const name of CONFIG_FILE_NAMES) {
    const path = resolve(cwd, name)
    if (existsSync(path)) return path
  }
  return null
}

/**
 * The effective configuration: the config file (named, or `engram.toml` / `engram.json` in `cwd`, or
 * none), validated against one schema, then the environment on top (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
 * `HERMES_MODEL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `ENGRAM_DB_URL`, `ENGRAM_DB_AUTH_TOKEN`), then
 * `overrides` (the command line). With no API key anywhere the provider is `offline`. Relative paths in the
 * file are resolved against the file's folder, other relative paths against `cwd`. Unless the file names
 * them, `MEMORY.md` and `USER.md` live in the database's folder. Defaults come from `./defaults.ts`.
 *
 * Throws an EngramError with code INVALID_CONFIG whose one-line message names the file, the key and what it
 * expects (a secret's value is never repeated). Reads at most one small file; touches nothing else.
 */
export function loadConfig(options: LoadConfigOptions = {}): EngramConfig {
  const cwd = resolve(options.cwd ?? process.cwd())
  const env = options.env ?? process.env
  const path = findFile(options, cwd)
  const file = path ? parseFile(readConfigFile(path), path) : {}
  const used: string[] = []
  const context: Context = {
    file,
    where: path ?? 'the environment',
    fileDir: path ? dirname(path) : cwd,
    cwd,
    fromEnv: envReader(env, used),
    overrides: options.overrides ?? {},
    defaultDatabase: options.defaultDatabase ?? DEFAULT_DATABASE_PATH,
  }
  const storage = resolveStorage(context)
  const api = resolveApi(context)
  const compressModel = either(
    file.models?.compressor?.model_id,
    'models.compressor.model_id',
    file.context_compressor?.compress_model,
    'context_compressor.compress_model',
    context.where,
  )
  const compressor = resolveCompressor(file)
  const mainId =
    context.overrides.model?.trim() ||
    context.fromEnv('HERMES_MODEL') ||
    file.models?.main?.model_id ||
    DEFAULT_MODEL_IDS[api.provider]
  return {
    storage,
    compressor,
    memoryFiles: resolveMemoryFiles(context, storage.url ?? DEFAULT_DATABASE_PATH),
    nudge: { intervalTasks: file.nudge?.interval_tasks ?? DEFAULT_NUDGE_INTERVAL_TASKS },
    api,
    models: {
      main: resolveModel(file.models?.main, mainId, DEFAULT_MAX_TOKENS),
      compressor: resolveModel(file.models?.compressor, compressModel ?? mainId, compressor.summaryMaxTokens),
    },
    ...(file.user ? { user: file.user } : {}),
    ...(file.mcp
      ? {
          mcp: {
            user: file.mcp.user,
            project: file.mcp.project,
            readOnly: file.mcp.read_only,
            sessionLog: file.mcp.session_log,
          },
        }
      : {}),
    origin: { file: path, env: [...new Set(used)] },
  }
}
