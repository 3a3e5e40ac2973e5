import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openHermes } from '../src/transfer/hermes.ts'
import { hermesSchema } from './fixtures/hermes-schema.ts'
import { engram, engramJson, type Json, tempDir, withStore } from './helpers.ts'

const dir = tempDir()

// Later Hermes versions keep system prompts content-addressed: the prompt moves to its own table and the
// session keeps its hash (applied on top of the schema-22 DDL).
const CONTENT_ADDRESSED_PROMPTS = `
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
ALTER TABLE sessions ADD COLUMN system_prompt_hash TEXT;
`

const T0 = 1_767_000_000.25 // seconds, as Hermes stores them
const ROOT = '20260101_093000_a1b2c3'
const CHILD = '20260101_101500_d4e5f6'
const TELEGRAM = '20260102_080000_778899'

function buildHermes(path: string, version: 21 | 22): void {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = OFF') // as in Python's sqlite3, which Hermes uses
  db.exec(hermesSchema(version))
  if (version === 22) db.exec(CONTENT_ADDRESSED_PROMPTS)
  db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version)
  const session =
    db.prepare(`INSERT INTO sessions (id, source, user_id, model, system_prompt, parent_session_id,
    started_at, ended_at, end_reason, message_count, tool_call_count, input_tokens, output_tokens, estimated_cost_usd,
    title, api_call_count) VALUES (@id, @source, @user, @model, @prompt, @parent, @started, @ended, @reason, @count,
    @tools, @input, @output, @cost, @title, @calls)`)
  const base = {
    user: 'u-42',
    model: 'anthropic/claude-sonnet-4',
    prompt: null,
    parent: null,
    ended: null,
    reason: null,
    tools: 0,
    input: 0,
    output: 0,
    cost: null,
    calls: 0,
    title: null,
  }
  // The child is written first and starts "earlier" (clock skew): the import must still create its parent first.
  session.run({
    ...base,
    id: CHILD,
    source: 'cli',
    parent: ROOT,
    started: T0 - 5,
    count: 2,
    title: 'Deploy plan #2',
  })
  session.run({
    ...base,
    id: ROOT,
    source: 'cli',
    prompt: 'You are Hermes, a helpful agent.\n\nMEMORY: deploys go to fly.io',
    started: T0,
    ended: T0 + 600,
    reason: 'compression',
    count: 5,
    tools: 1,
    input: 5200,
    output: 830,
    cost: 0.0421,
    title: 'Deploy plan',
    calls: 3,
  })
  session.run({
    ...base,
    id: TELEGRAM,
    source: 'telegram',
    user: 'tg-7',
    started: T0 + 86_400,
    ended: T0 + 86_500,
    reason: 'user_exit',
    count: 2,
    input: 90,
    output: 12,
    calls: 1,
  })
  if (version === 22) {
    db.prepare('INSERT INTO system_prompts (hash, prompt) VALUES (?, ?)').run(
      'h1',
      'You are Hermes (deduplicated prompt).',
    )
    db.prepare("UPDATE sessions SET system_prompt = NULL, system_prompt_hash = 'h1' WHERE id = ?").run(ROOT)
    const usage =
      db.prepare(`INSERT INTO session_model_usage (session_id, model, task, api_call_count, input_tokens,
      output_tokens, actual_cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?)`)
    usage.run(ROOT, 'anthropic/claude-sonnet-4', '', 2, 5000, 800, 0.04)
    usage.run(ROOT, 'google/gemini-flash', 'compression', 1, 200, 30, 0.0021)
  } else {
    // Schema 21: per-model rows without a task, as its v20 migration seeded them from the sessions.
    db.prepare(`INSERT INTO session_model_usage (session_id, model, api_call_count, input_tokens, output_tokens,
      estimated_cost_usd) VALUES (?, ?, ?, ?, ?, ?)`).run(
      ROOT,
      'anthropic/claude-sonnet-4',
      3,
      5200,
      830,
      0.0421,
    )
  }
  const message =
    db.prepare(`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name,
    timestamp, token_count, finish_reason, reasoning) VALUES (@session, @role, @content, @callId, @calls, @tool, @at,
    @tokens, @finish, @reasoning)`)
  const m = { callId: null, calls: null, tool: null, tokens: null, finish: null, reasoning: null }
  message.run({
    ...m,
    session: ROOT,
    role: 'user',
    content: 'How do we deploy the API?',
    at: T0 + 1,
    tokens: 9,
  })
  message.run({
    ...m,
    session: ROOT,
    role: 'assistant',
    content: '',
    calls: JSON.stringify([
      {
        id: 'call_abc',
        type: 'function',
        function: { name: 'terminal', arguments: '{"command":"cat fly.toml"}' },
      },
    ]),
    at: T0 + 2,
    finish: 'tool_calls',
    reasoning: 'check the config first',
  })
  message.run({
    ...m,
    session: ROOT,
    role: 'tool',
    content: 'app = "api"\nprimary_region = "ams"',
    callId: 'call_abc',
    tool: 'terminal',
    at: T0 + 3,
  })
  message.run({ ...m, session: ROOT, role: 'session_meta', content: '{"kind":"marker"}', at: T0 + 3.5 })
  message.run({
    ...m,
    session: ROOT,
    role: 'assistant',
    content: 'Deploy with `fly deploy` from the repo root.',
    at: T0 + 4,
    tokens: 14,
    finish: 'stop',
  })
  message.run({
    ...m,
    session: CHILD,
    role: 'user',
    content: '[CONTEXT SUMMARY] deploy with fly',
    at: T0 + 601,
  })
  message.run({ ...m, session: CHILD, role: 'assistant', content: 'Continuing.', at: T0 + 602 })
  message.run({ ...m, session: TELEGRAM, role: 'user', content: '我们用 FastAPI 做后端', at: T0 + 86_401 })
  message.run({
    ...m,
    session: TELEGRAM,
    role: 'assistant',
    content: '好的，后端用 FastAPI。',
    at: T0 + 86_402,
  })
  db.close()
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

describe('engram import --from-hermes', () => {
  it('imports a schema-21 state.db read-only: sessions, tool calls, tool names, lineage, titles, tokens, end reasons, prompts', async () => {
    const hermes = join(dir, 'state-v21.db')
    buildHermes(hermes, 21)
    const hash = sha256(hermes)
    const mtime = statSync(hermes).mtimeMs
    const db = join(dir, 'from-v21.db')

    const first = await engramJson<Record<string, Json>>(['import', '--from-hermes', hermes, '--db', db])
    expect(first).toMatchObject({
      imported: 3,
      skipped: 0,
      messages: 8,
      hermesSchemaVersion: 21,
      source: hermes,
    })
    expect(first.warnings).toEqual([
      `message 4 of ${ROOT}: role "session_meta" has no Engram equivalent`,
      `session ${ROOT}: the reasoning of 1 message(s) was not imported (Engram stores no reasoning)`,
    ])
    expect(sha256(hermes)).toBe(hash)
    expect(statSync(hermes).mtimeMs).toBe(mtime)
    // Read from a copy in memory: nothing appears beside the Hermes file.
    expect(readdirSync(dir).filter((name) => name.startsWith('state-v21.db'))).toEqual(['state-v21.db'])

    const second = await engramJson<Record<string, Json>>(['import', '--from-hermes', hermes, '--db', db])
    expect(second).toMatchObject({ imported: 0, skipped: 3, messages: 0 })
    expect(sha256(hermes)).toBe(hash)

    const shown = await engramJson<Record<string, Json>>(['show', ROOT, '--db', db])
    expect(shown.session).toMatchObject({
      id: ROOT,
      source: 'cli',
      userId: 'u-42',
      model: 'anthropic/claude-sonnet-4',
      title: 'Deploy plan',
      systemPrompt: 'You are Hermes, a helpful agent.\n\nMEMORY: deploys go to fly.io',
      endReason: 'compression',
      messageCount: 4,
      toolCallCount: 1,
      inputTokens: 5200,
      outputTokens: 830,
    })
    expect(shown.session.costUsd).toBeCloseTo(0.0421)
    expect(shown.session.startedAt).toBe(Math.round(T0 * 1000))
    expect(shown.session.endedAt).toBe(Math.round((T0 + 600) * 1000))
    expect(shown.lineage.map((s: { id: string }) => s.id)).toEqual([ROOT, CHILD])
    expect(shown.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(shown.messages[0]).toMatchObject({ timestamp: Math.round((T0 + 1) * 1000), tokenCount: 9 })
    expect(shown.messages[1].tool_calls).toEqual([
      {
        id: 'call_abc',
        type: 'function',
        function: { name: 'terminal', arguments: '{"command":"cat fly.toml"}' },
      },
    ])
    expect(shown.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc', name: 'terminal' })
    expect(shown.usage.total).toMatchObject({ calls: 3, inputTokens: 5200, outputTokens: 830 })

    const telegram = await engramJson<{ sessions: Record<string, unknown>[] }>([
      'sessions',
      '--source',
      'telegram',
      '--db',
      db,
    ])
    expect(telegram.sessions).toEqual([
      expect.objectContaining({ id: TELEGRAM, userId: 'tg-7', endReason: 'user_exit' }),
    ])
    const search = await engramJson<{ hits: Record<string, unknown>[] }>(['search', '后端', '--db', db])
    expect(search.hits.map((h) => h.sessionId)).toEqual([TELEGRAM, TELEGRAM])
    const tool = await engramJson<{ hits: Record<string, unknown>[] }>(['search', 'fly.toml', '--db', db])
    expect(tool.hits[0]).toMatchObject({ sessionId: ROOT, role: 'assistant' })
  })

  it('reads schema 22 too: per-model usage with its task (one row per total, its call count kept), deduplicated prompts', async () => {
    const hermes = join(dir, 'state-v22.db')
    buildHermes(hermes, 22)
    const hash = sha256(hermes)
    const db = join(dir, 'from-v22.db')
    const result = await engramJson<Record<string, Json>>(['import', '--from-hermes', hermes, '--db', db])
    expect(result).toMatchObject({ imported: 3, hermesSchemaVersion: 22 })
    expect(sha256(hermes)).toBe(hash)
    await withStore(db, async (store) => {
      expect((await store.getSession(ROOT))?.systemPrompt).toBe('You are Hermes (deduplicated prompt).')
      const usage = await store.usage({ sessionId: ROOT })
      expect(usage.byPurpose.main).toMatchObject({ calls: 2, inputTokens: 5000, outputTokens: 800 })
      expect(usage.byPurpose.compression).toMatchObject({ calls: 1, inputTokens: 200, outputTokens: 30 })
      expect(usage.byModel['google/gemini-flash']?.costUsd).toBeCloseTo(0.0021)
    })
    // Each Hermes total is one row carrying its call count, not a row per made-up call.
    const raw = new Database(db, { readonly: true })
    const rows = raw
      .prepare('SELECT calls FROM model_calls WHERE session_id = ? ORDER BY purpose')
      .pluck()
      .all(ROOT)
    raw.close()
    expect(rows).toEqual([1, 2])
  })

  it("reads each session's model_config: its window and reply budget under Engram's names, its other keys, never a credential", async () => {
    const hermes = join(dir, 'state-model-config.db')
    buildHermes(hermes, 22)
    const edit = new Database(hermes)
    const set = edit.prepare('UPDATE sessions SET model_config = ? WHERE id = ?')
    set.run(
      JSON.stringify({
        provider: 'custom',
        base_url: 'http://127.0.0.1:8080/v1',
        context_length: 6000,
        max_tokens: 700,
        api_key: 'sk-live-do-not-import',
        headers: { Authorization: 'Bearer do-not-import', 'X-Title': 'hermes' },
      }),
      ROOT,
    )
    set.run('{"context_length": ', TELEGRAM)
    edit.close()
    const db = join(dir, 'from-model-config.db')
    const result = await engramJson<Record<string, Json>>(['import', '--from-hermes', hermes, '--db', db])
    expect(result).toMatchObject({ imported: 3 })
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        `session ${ROOT}: model_config keys that may hold a credential were left out`,
        `session ${TELEGRAM}: model_config is not a JSON object; not imported`,
      ]),
    )
    expect(JSON.stringify(result)).not.toMatch(/do-not-import/)
    await withStore(db, async (store) => {
      expect((await store.getSession(ROOT))?.modelConfig).toEqual({
        provider: 'custom',
        base_url: 'http://127.0.0.1:8080/v1',
        context_length: 6000,
        max_tokens: 700,
        headers: { 'X-Title': 'hermes' },
        contextWindow: 6000,
        maxTokens: 700,
      })
      expect((await store.getSession(TELEGRAM))?.modelConfig).toBeNull()
      expect((await store.getSession(CHILD))?.modelConfig).toBeNull()
    })
  })

  it('reads what a running Hermes still holds in its -wal file', async () => {
    const hermes = join(dir, 'state-live.db')
    buildHermes(hermes, 21)
    const live = new Database(hermes)
    live.pragma('wal_autocheckpoint = 0')
    live
      .prepare("INSERT INTO sessions (id, source, started_at) VALUES ('20260301_120000_live', 'cli', ?)")
      .run(T0 + 90_000)
    live
      .prepare(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260301_120000_live', 'user', 'still in the wal', ?)",
      )
      .run(T0 + 90_001)
    try {
      const db = join(dir, 'from-live.db')
      const result = await engramJson<Record<string, Json>>(['import', '--from-hermes', hermes, '--db', db])
      expect(result).toMatchObject({ imported: 4 })
      const search = await engramJson<{ hits: Record<string, unknown>[] }>(['search', 'wal', '--db', db])
      expect(search.hits[0]).toMatchObject({ sessionId: '20260301_120000_live' })
    } finally {
      live.close()
    }
  })

  it('refuses a file that is not a Hermes database, in one line with the fix', async () => {
    const notHermes = join(dir, 'not-hermes.db')
    new Database(notHermes).exec('CREATE TABLE t (x)').close()
    const result = await engram(['import', '--from-hermes', notHermes, '--db', join(dir, 'x.db')])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `engram: ${notHermes} is not a Hermes state.db (it has no sessions and messages tables). Pass the path of Hermes' state.db.\n`,
    )
    const garbage = join(dir, 'garbage.db')
    writeFileSync(garbage, 'this is not sqlite at all, just text that is long enough to be a header')
    const bad = await engram(['import', '--from-hermes', garbage, '--db', join(dir, 'y.db')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(
      /^engram: Cannot read the Hermes database .*garbage\.db \(file is not a database\)\. Pass the path of Hermes' state\.db/,
    )
    const neither = await engram(['import', '--db', join(dir, 'z.db')])
    expect(neither.code).toBe(2)
    expect(neither.stderr).toContain(
      'Say what to import: `engram import <file>` (a file written by `engram export`) or `engram import --from-hermes <state.db>`',
    )
    const missing = await engram([
      'import',
      '--from-hermes',
      join(dir, 'missing.db'),
      '--db',
      join(dir, 'z.db'),
    ])
    expect(missing.stderr).toMatch(/Cannot read the Hermes database .*missing\.db \(no such file\)/)
  })
})

describe('hostile Hermes files', () => {
  it('never reads a generated column: a prompt of hex(zeroblob(N)) adds nothing to the store', async () => {
    const bomb = join(dir, 'bomb.db')
    const db = new Database(bomb)
    // The columns Hermes has, by name; each read of prompt or content would compute 100 MB of text.
    db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL, system_prompt_hash TEXT);
      CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, n INTEGER,
        prompt TEXT GENERATED ALWAYS AS (hex(zeroblob(n))) VIRTUAL);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, n INTEGER, timestamp REAL,
        content TEXT GENERATED ALWAYS AS (hex(zeroblob(n))) VIRTUAL);`)
    db.prepare('INSERT INTO system_prompts (hash, n) VALUES (?, ?)').run('h', 50_000_000)
    for (let i = 0; i < 3; i++) {
      const id = `20260101_00000${i}_bomb`
      db.prepare(
        "INSERT INTO sessions (id, source, started_at, system_prompt_hash) VALUES (?, 'cli', ?, 'h')",
      ).run(id, T0 + i)
      db.prepare("INSERT INTO messages (session_id, role, n, timestamp) VALUES (?, 'user', 50000000, ?)").run(
        id,
        T0 + i,
      )
    }
    db.close()
    expect(statSync(bomb).size).toBeLessThan(200_000)
    const target = join(dir, 'from-bomb.db')
    const result = await engramJson<Record<string, Json>>(['import', '--from-hermes', bomb, '--db', target])
    expect(result).toMatchObject({ imported: 3 })
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        "system_prompts.prompt is a generated column (computed by the file's own SQL): not read",
        "messages.content is a generated column (computed by the file's own SQL): not read",
      ]),
    )
    await withStore(target, async (store) => {
      const session = await store.getSession('20260101_000000_bomb')
      expect(session?.systemPrompt).toBeNull()
    })
    expect(statSync(target).size).toBeLessThan(2_000_000)
  })

  it('stops at a row past the limit by its id, before reading its text', () => {
    const big = join(dir, 'big-row.db')
    buildHermes(big, 21)
    const db = new Database(big)
    db.prepare(
      'UPDATE messages SET content = ? WHERE id = (SELECT max(id) FROM messages WHERE session_id = ?)',
    ).run('x'.repeat(8000), ROOT)
    db.prepare('UPDATE sessions SET system_prompt = ? WHERE id = ?').run('p'.repeat(5000), TELEGRAM)
    db.close()
    expect(() => openHermes(big, { maxRowBytes: 4000 })).toThrow(
      new RegExp(
        `^Session ${TELEGRAM} in .*big-row\\.db holds 0\\.0 MiB, over the 0\\.0 MiB one imported row may bring, so the import stopped before reading it; nothing was imported\\.`,
      ),
    )
    const hermes = openHermes(big, { maxRowBytes: 6000 })
    try {
      const root = hermes.sessions.find((s) => s.session.id === ROOT)
      if (!root) throw new Error('no root session')
      expect(() => hermes.load(root)).toThrow(
        /^Message \d+ of session .* holds .* one imported row may bring/,
      )
    } finally {
      hermes.close()
    }
  })

  it('reads a -wal left without its -shm, making no file beside the source', async () => {
    const hermes = join(dir, 'state-crashed-src.db')
    buildHermes(hermes, 21)
    const live = new Database(hermes)
    live.pragma('wal_autocheckpoint = 0')
    live
      .prepare("INSERT INTO sessions (id, source, started_at) VALUES ('20260301_120000_crash', 'cli', ?)")
      .run(T0 + 90_000)
    live
      .prepare(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260301_120000_crash', 'user', 'only in the wal', ?)",
      )
      .run(T0 + 90_001)
    // Hermes killed: the file and its -wal stay, the -shm is gone.
    const crashed = join(dir, 'crashed')
    mkdirSync(crashed)
    copyFileSync(hermes, join(crashed, 'state.db'))
    copyFileSync(`${hermes}-wal`, join(crashed, 'state.db-wal'))
    live.close()
    const hash = sha256(join(crashed, 'state.db'))
    const walHash = sha256(join(crashed, 'state.db-wal'))
    const db = join(dir, 'from-crashed.db')
    const result = await engramJson<Record<string, Json>>([
      'import',
      '--from-hermes',
      join(crashed, 'state.db'),
      '--db',
      db,
    ])
    expect(result).toMatchObject({ imported: 4 })
    expect(readdirSync(crashed).sort()).toEqual(['state.db', 'state.db-wal'])
    expect(existsSync(join(crashed, 'state.db-shm'))).toBe(false)
    expect(sha256(join(crashed, 'state.db'))).toBe(hash)
    expect(sha256(join(crashed, 'state.db-wal'))).toBe(walHash)
    const search = await engramJson<{ hits: Record<string, unknown>[] }>([
      'search',
      'only in the wal',
      '--db',
      db,
    ])
    expect(search.hits[0]).toMatchObject({ sessionId: '20260301_120000_crash' })
  })
})
