import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  EngramError,
  type Role,
  type Session,
  type SessionModelConfig,
  type StoredMessage,
  type UsageGroup,
} from '@engram/core'
import Database from 'better-sqlite3'
import type { ExportedSession } from './document.ts'

type Row = Record<string, unknown>

/** A Hermes Agent `state.db` (the schema of `hermes_state.py`), opened read-only. */
export interface HermesSource {
  /** `schema_version.version`, or null for the oldest files, which have no such table. */
  schemaVersion: number | null
  /** What was found and left out for the whole file (generated columns). */
  warnings: string[]
  /** Sessions without their messages, parents before children. */
  sessions: ExportedSession[]
  /** Reads one session's messages and usage (on demand: a state.db can be large). */
  load(session: ExportedSession): { messages: StoredMessage[]; usage: UsageGroup[]; skipped: string[] }
  close(): void
}

const ROLES: ReadonlySet<string> = new Set<Role>(['system', 'user', 'assistant', 'tool'])

// Hermes stores seconds as REAL; a value this large is already milliseconds.
const toMs = (value: unknown): number | null => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null
  return Math.round(value < 1e11 ? value * 1000 : value)
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null)

/**
 * The stored columns of `table`: a generated column (`hidden` 2 virtual, 3 stored) is computed by the
 * file's own SQL on every read, so a 24 KB file could hand out gigabytes (`hex(zeroblob(N))`); it is
 * never read, as if it were not there.
 */
function columns(db: Database.Database, table: string): Set<string> {
  const all = db.prepare(`PRAGMA table_xinfo(${table})`).all() as { name: string; hidden: number }[]
  return new Set(all.filter((c) => c.hidden === 0).map((c) => c.name))
}

/** The generated columns of `table` among `wanted`: reported, never read. */
function generatedColumns(db: Database.Database, table: string, wanted: readonly string[]): string[] {
  const all = db.prepare(`PRAGMA table_xinfo(${table})`).all() as { name: string; hidden: number }[]
  return all.filter((c) => c.hidden !== 0 && wanted.includes(c.name)).map((c) => `${table}.${c.name}`)
}

/**
 * The most one Hermes row may bring (a session with its system prompt, or one message with its tool
 * calls): a row past it stops the import with its id before its text is read.
 */
const MAX_HERMES_ROW_BYTES = 64 * 1024 * 1024

/** A row past the limit: which one, how large, and what to do. */
function rowTooLarge(path: string, what: string, bytes: number, max: number, before: string): EngramError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`
  return new EngramError(
    'INVALID_ARGUMENT',
    `${what} in ${path} holds ${mib(bytes)}, over the ${mib(max)} one imported row may bring, so the import stopped before reading it; ${before}. Remove or shorten that row in a copy of the file (sqlite3), then import the copy.`,
  )
}

/** `sum of octet_length(col)` over the columns present: SQLite reads the sizes without loading the text. */
const bytesOf = (alias: string, have: Set<string>, names: readonly string[]) =>
  names
    .filter((name) => have.has(name))
    .map((name) => `coalesce(octet_length(${alias}.${name}), 0)`)
    .join(' + ') || '0'

/** `column` when the table has it, else NULL under that name: files of every schema version read alike. */
const pick = (have: Set<string>, alias: string) => (column: string) =>
  have.has(column) ? `${alias}.${column}` : `NULL AS ${column}`

const SQLITE_HEADER = 'SQLite format 3\0'

/**
 * Copies `state.db` and its `-wal` into `dir`, again while the source changed during the copy (Hermes
 * checkpointing): a consistent pair, read there, where SQLite may make its `-shm`.
 */
function copyWithWal(path: string, dir: string): string {
  const copy = join(dir, 'state.db')
  const stamp = () =>
    [path, `${path}-wal`].map((file) => {
      const { size, mtimeMs } = statSync(file)
      return `${size}:${mtimeMs}`
    })
  for (let attempt = 1; ; attempt++) {
    const before = stamp().join()
    copyFileSync(path, copy)
    copyFileSync(`${path}-wal`, `${copy}-wal`)
    if (stamp().join() === before || attempt >= 5) return copy
  }
}

/**
 * Opens the Hermes file without writing anything beside it: SQLite makes `-wal` and `-shm` files even for
 * a read-only connection to a WAL database. When Hermes has left no `-wal`, the file is read into memory
 * and opened from there, its header set to rollback mode as a copy may be (an in-memory database cannot be
 * in WAL mode). When a `-wal` is there (Hermes running, or stopped before it checkpointed), the file and
 * its `-wal` are copied into a temporary folder and read there, so the pages still in the WAL are read
 * too; the folder goes when the import closes.
 */
function openReadOnly(path: string): { db: Database.Database; dispose: () => void } {
  let dir: string | undefined
  const dispose = () => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  }
  try {
    let db: Database.Database
    if (existsSync(`${path}-wal`)) {
      dir = mkdtempSync(join(tmpdir(), 'engram-hermes-'))
      db = new Database(copyWithWal(path, dir), { readonly: true, fileMustExist: true })
    } else {
      const bytes = readFileSync(path)
      if (bytes.subarray(0, 16).toString('latin1') === SQLITE_HEADER && bytes[18] === 2 && bytes[19] === 2) {
        bytes[18] = 1
        bytes[19] = 1
      }
      db = new Database(bytes, { readonly: true })
    }
    db.prepare('SELECT count(*) FROM sqlite_master').get()
    return { db, dispose }
  } catch (cause) {
    dispose()
    const code = (cause as { code?: string }).code
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder'
          : (cause as Error).message.split('\n')[0]
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Cannot read the Hermes database ${path} (${reason}). Pass the path of Hermes' state.db (usually ~/.hermes/state.db).`,
      { cause },
    )
  }
}

/** The fields of a Hermes message that Engram has no place for: reported, never dropped silently. */
const UNKEPT_MESSAGE_FIELDS = ['reasoning', 'reasoning_content', 'reasoning_details', 'codex_reasoning_items']

// Keys of a Hermes model_config that may hold a credential: never imported (whatever their depth).
const SECRET_KEY =
  /(?:^|[_-])(?:api[_-]?key|key|secret|password|passwd|token|auth|authorization|credentials?|cookie)(?:$|[_-])/i
// Hermes' names for the settings Engram reads, and Engram's own (a file Engram's settings went into).
const WINDOW_KEYS = ['context_length', 'context_window', 'contextWindow']
const REPLY_KEYS = ['max_tokens', 'maxTokens']

const withoutSecrets = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutSecrets)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => !SECRET_KEY.test(key))
            .map(([key, v]) => [key, withoutSecrets(v)]),
        )
      : value

const wholeAtLeastOne = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1

/**
 * A Hermes session's `model_config` (JSON text) as Engram's model settings: its window and reply budget
 * under Engram's names, its other keys kept, keys that may hold a credential left out. Text that is not a
 * JSON object is not imported; `notes` says so.
 */
function modelConfigOf(value: unknown, sessionId: string, notes: string[]): SessionModelConfig | null {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() === 'null') return null
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    parsed = undefined
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    notes.push(`session ${sessionId}: model_config is not a JSON object; not imported`)
    return null
  }
  const config = withoutSecrets(parsed) as Record<string, unknown>
  if (Object.keys(config).length < Object.keys(parsed).length)
    notes.push(`session ${sessionId}: model_config keys that may hold a credential were left out`)
  const window = WINDOW_KEYS.map((key) => config[key]).find(wholeAtLeastOne)
  const reply = REPLY_KEYS.map((key) => config[key]).find(wholeAtLeastOne)
  const { contextWindow: _w, maxTokens: _r, model, provider, ...rest } = config
  return {
    ...rest,
    ...(window === undefined ? {} : { contextWindow: window }),
    ...(reply === undefined ? {} : { maxTokens: reply }),
    ...(typeof model === 'string' ? { model } : {}),
    ...(typeof provider === 'string' ? { provider } : {}),
  }
}

function toSession(row: Row, notes: string[]): Session {
  const id = String(row.id)
  return {
    id,
    source: str(row.source) ?? 'hermes',
    userId: str(row.user_id),
    model: str(row.model),
    title: str(row.title),
    systemPrompt: str(row.prompt),
    modelConfig: modelConfigOf(row.model_config, id, notes),
    parentSessionId: str(row.parent_session_id),
    startedAt: toMs(row.started_at) ?? 0,
    endedAt: toMs(row.ended_at),
    endReason: str(row.end_reason),
    messageCount: num(row.message_count),
    toolCallCount: num(row.tool_call_count),
    inputTokens: num(row.input_tokens),
    outputTokens: num(row.output_tokens),
    costUsd: num(row.actual_cost_usd) || num(row.estimated_cost_usd),
  }
}

function toolCallsOf(value: unknown): StoredMessage['tool_calls'] | 'invalid' | undefined {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() === 'null') return undefined
  try {
    const calls = JSON.parse(value)
    if (!Array.isArray(calls)) return 'invalid'
    return calls.length > 0 ? calls : undefined
  } catch {
    return 'invalid'
  }
}

function toMessage(row: Row, sessionId: string, skipped: string[]): StoredMessage | null {
  const role = String(row.role)
  if (!ROLES.has(role)) {
    skipped.push(`message ${row.id} of ${sessionId}: role ${JSON.stringify(role)} has no Engram equivalent`)
    return null
  }
  if (role === 'tool' && !str(row.tool_call_id)) {
    skipped.push(`message ${row.id} of ${sessionId}: a tool result without the id of its call`)
    return null
  }
  const message: Record<string, unknown> = {
    id: Number(row.id),
    sessionId,
    role: role as Role,
    content: typeof row.content === 'string' ? row.content : null,
    timestamp: toMs(row.timestamp) ?? 0,
    tokenCount:
      typeof row.token_count === 'number' && row.token_count >= 0 ? Math.round(row.token_count) : null,
  }
  const calls = role === 'assistant' ? toolCallsOf(row.tool_calls) : undefined
  if (calls === 'invalid')
    skipped.push(`message ${row.id} of ${sessionId}: tool_calls is not a JSON array; kept the text only`)
  else if (calls) message.tool_calls = calls
  if (str(row.tool_call_id)) message.tool_call_id = String(row.tool_call_id)
  if (role === 'tool' && str(row.tool_name)) message.name = String(row.tool_name)
  return message as unknown as StoredMessage
}

function usageOf(session: Session, row: Row, perModel: Row[]): UsageGroup[] {
  const fromTable = perModel.map((u) => ({
    // Schema 22 added `task` ('' for the main loop); before it every row is main-loop usage.
    purpose: str(u.task) ?? 'main',
    model: String(u.model),
    calls: num(u.api_call_count),
    inputTokens: num(u.input_tokens),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: num(u.cache_read_tokens),
    cacheWriteTokens: num(u.cache_write_tokens),
    costUsd: num(u.actual_cost_usd) || num(u.estimated_cost_usd),
  }))
  if (fromTable.length > 0) return fromTable
  if (session.inputTokens + session.outputTokens === 0) return []
  return [
    {
      purpose: 'main',
      model: session.model ?? 'unknown',
      calls: num(row.api_call_count) || 1,
      inputTokens: session.inputTokens,
      outputTokens: session.outputTokens,
      cacheReadTokens: num(row.cache_read_tokens),
      cacheWriteTokens: num(row.cache_write_tokens),
      costUsd: session.costUsd,
    },
  ]
}

const SESSION_COLUMNS = [
  'id',
  'source',
  'user_id',
  'model',
  'model_config',
  'title',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'message_count',
  'tool_call_count',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'estimated_cost_usd',
  'actual_cost_usd',
  'api_call_count',
]
const MESSAGE_COLUMNS = [
  'id',
  'role',
  'content',
  'tool_call_id',
  'tool_calls',
  'tool_name',
  'timestamp',
  'token_count',
]

/**
 * Opens a Hermes Agent `state.db` read-only (the file is never written, nothing is made beside it) and maps
 * its sessions to Engram's shape. Stored columns are read by name when present, so files from the oldest
 * schema up to the current one (schema_version 21 and later) import alike; generated columns are never
 * read, and a row past `maxRowBytes` stops the import by its id before its text is read.
 */
export function openHermes(path: string, { maxRowBytes = MAX_HERMES_ROW_BYTES } = {}): HermesSource {
  const { db, dispose } = openReadOnly(path)
  const close = () => {
    db.close()
    dispose()
  }
  try {
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (t) => t.name,
      ),
    )
    if (!tables.has('sessions') || !tables.has('messages')) {
      throw new EngramError(
        'INVALID_ARGUMENT',
        `${path} is not a Hermes state.db (it has no sessions and messages tables). Pass the path of Hermes' state.db.`,
      )
    }
    const version = tables.has('schema_version')
      ? ((db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? null)
      : null
    const sessionHave = columns(db, 'sessions')
    const s = pick(sessionHave, 's')
    const promptHave = tables.has('system_prompts') ? columns(db, 'system_prompts') : new Set<string>()
    const sharedPrompts =
      promptHave.has('prompt') && promptHave.has('hash') && sessionHave.has('system_prompt_hash')
    const sharedPrompt = (column: string) =>
      `(SELECT ${column} FROM system_prompts p WHERE p.hash = s.system_prompt_hash)`
    const ownPrompt = sessionHave.has('system_prompt') ? 's.system_prompt' : 'NULL'
    const prompt = sharedPrompts ? `coalesce(${ownPrompt}, ${sharedPrompt('p.prompt')})` : ownPrompt
    const warnings = [
      ...generatedColumns(db, 'sessions', [...SESSION_COLUMNS, 'system_prompt', 'system_prompt_hash']),
      ...(tables.has('system_prompts') ? generatedColumns(db, 'system_prompts', ['hash', 'prompt']) : []),
      ...generatedColumns(db, 'messages', [...MESSAGE_COLUMNS, ...UNKEPT_MESSAGE_FIELDS]),
    ].map((column) => `${column} is a generated column (computed by the file's own SQL): not read`)

    // Sizes first (octet_length reads them without the text): a row past the limit is named, not read.
    const sessionBytes = `${bytesOf('s', sessionHave, [...SESSION_COLUMNS, 'system_prompt'])} + ${
      sharedPrompts ? `coalesce(${sharedPrompt('octet_length(p.prompt)')}, 0)` : '0'
    }`
    const bigSession = db
      .prepare(
        `SELECT s.id AS id, ${sessionBytes} AS bytes FROM sessions s WHERE ${sessionBytes} > ? LIMIT 1`,
      )
      .get(maxRowBytes) as { id: unknown; bytes: number } | undefined
    if (bigSession)
      throw rowTooLarge(
        path,
        `Session ${String(bigSession.id)}`,
        bigSession.bytes,
        maxRowBytes,
        'nothing was imported',
      )
    const rows = db
      .prepare(
        `SELECT ${[...SESSION_COLUMNS.map(s), `${prompt} AS prompt`].join(', ')} FROM sessions s ORDER BY s.started_at, s.rowid`,
      )
      .all() as Row[]
    const messageHave = columns(db, 'messages')
    const m = pick(messageHave, 'm')
    const unkept = UNKEPT_MESSAGE_FIELDS.filter((field) => messageHave.has(field))
    const messageBytes = bytesOf('m', messageHave, [...MESSAGE_COLUMNS, ...unkept])
    const bigMessage = db.prepare(
      `SELECT m.id AS id, ${messageBytes} AS bytes FROM messages m WHERE m.session_id = ? AND ${messageBytes} > ? LIMIT 1`,
    )
    const readMessages = db.prepare(
      `SELECT ${[...MESSAGE_COLUMNS, ...unkept].map(m).join(', ')} FROM messages m WHERE m.session_id = ? ORDER BY m.id`,
    )
    // The stored columns that exist: `task` is there from schema 22 on.
    const usageColumns = tables.has('session_model_usage') ? columns(db, 'session_model_usage') : null
    const readUsage = usageColumns
      ? db.prepare(
          `SELECT ${[...usageColumns].map((c) => `"${c.replace(/"/g, '""')}"`).join(', ')} FROM session_model_usage WHERE session_id = ? ORDER BY ${['model', 'task'].filter((c) => usageColumns.has(c)).join(', ') || 'rowid'}`,
        )
      : null
    const byId = new Map(rows.map((row) => [String(row.id), row]))
    return {
      schemaVersion: version,
      warnings,
      sessions: rows.map((row) => ({
        session: toSession(row, warnings),
        messages: [],
        episodes: [],
        usage: [],
      })),
      load(exported) {
        const skipped: string[] = []
        const id = exported.session.id
        const big = bigMessage.get(id, maxRowBytes) as { id: unknown; bytes: number } | undefined
        if (big)
          throw rowTooLarge(
            path,
            `Message ${String(big.id)} of session ${id}`,
            big.bytes,
            maxRowBytes,
            'the sessions before it are imported whole',
          )
        const rows = readMessages.all(id) as Row[]
        const messages = rows
          .map((row) => toMessage(row, id, skipped))
          .filter((message): message is StoredMessage => message !== null)
        for (const field of unkept) {
          const count = rows.filter((row) => typeof row[field] === 'string' && row[field] !== '').length
          if (count > 0)
            skipped.push(
              `session ${id}: the ${field} of ${count} message(s) was not imported (Engram stores no ${field})`,
            )
        }
        const usage = usageOf(exported.session, byId.get(id) ?? {}, (readUsage?.all(id) as Row[]) ?? [])
        return { messages, usage, skipped }
      },
      close,
    }
  } catch (error) {
    close()
    throw error
  }
}
