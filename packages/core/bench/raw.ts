/**
 * Raw better-sqlite3 baselines for the storage benchmark: the same data written with prepared statements
 * and no store in between. `noIndex` is the physical floor (the message columns, no full-text index);
 * `hermes` is the reference design (inline FTS5 unicode61 + inline FTS5 trigram tables fed by triggers).
 */
import Database from 'better-sqlite3'
import type { MessageInput } from '../src/index.ts'

export type Db = Database.Database

/** The pragmas the store applies to a local file. */
export function openRaw(path: string): Db {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  return db
}

const SESSIONS = `CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL, started_at INTEGER NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0, tool_call_count INTEGER NOT NULL DEFAULT 0)`

/** The store's message columns (search_text aside), the session index, and nothing else. */
const NO_INDEX_SCHEMA = `${SESSIONS};
CREATE TABLE messages (id INTEGER PRIMARY KEY NOT NULL, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
  content_parts TEXT, tool_calls TEXT, tool_call_id TEXT, name TEXT, timestamp INTEGER NOT NULL, token_count INTEGER);
CREATE INDEX messages_session_idx ON messages (session_id);`

/** Hermes Agent's SessionDB layout: two inline-content FTS5 tables (unicode61 and trigram) fed by triggers. */
const HERMES_SCHEMA = `${SESSIONS};
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
  token_count INTEGER, finish_reason TEXT);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
END;`

export type Layout = 'noIndex' | 'hermes'

export interface RawStore {
  db: Db
  createSession(id: string): void
  /** One message in one BEGIN IMMEDIATE … COMMIT transaction, as the store does it. */
  append(sessionId: string, m: MessageInput): void
  /** Many messages in one transaction (bulk setup). */
  appendMany(rows: readonly { sessionId: string; message: MessageInput }[]): void
  close(): void
}

const contentOf = (m: MessageInput): string | null => (typeof m.content === 'string' ? m.content : null)
const callsJson = (m: MessageInput): string | null =>
  m.tool_calls == null ? null : typeof m.tool_calls === 'string' ? m.tool_calls : JSON.stringify(m.tool_calls)

export function openRawStore(path: string, layout: Layout): RawStore {
  const db = openRaw(path)
  db.exec(layout === 'noIndex' ? NO_INDEX_SCHEMA : HERMES_SCHEMA)
  const newSession = db.prepare('INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)')
  let insert: (sessionId: string, m: MessageInput) => void
  if (layout === 'noIndex') {
    const stmt =
      db.prepare(`INSERT INTO messages (session_id, role, content, content_parts, tool_calls, tool_call_id, name,
      timestamp, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    insert = (sessionId, m) => {
      stmt.run(
        sessionId,
        m.role,
        contentOf(m),
        Array.isArray(m.content) ? JSON.stringify(m.content) : null,
        callsJson(m),
        m.tool_call_id ?? null,
        m.name ?? null,
        m.timestamp ?? Date.now(),
        m.tokenCount ?? null,
      )
    }
  } else {
    // Hermes' append_message: the row, then the session's counters, in one transaction.
    const stmt =
      db.prepare(`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,
      token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    const count = db.prepare(
      'UPDATE sessions SET message_count = message_count + 1, tool_call_count = tool_call_count + ? WHERE id = ?',
    )
    insert = (sessionId, m) => {
      stmt.run(
        sessionId,
        m.role,
        contentOf(m),
        m.tool_call_id ?? null,
        callsJson(m),
        m.name ?? null,
        (m.timestamp ?? Date.now()) / 1000,
        m.tokenCount ?? null,
      )
      count.run(Array.isArray(m.tool_calls) ? m.tool_calls.length : 0, sessionId)
    }
  }
  const one = db.transaction(insert)
  const many = db.transaction((rows: readonly { sessionId: string; message: MessageInput }[]) => {
    for (const r of rows) insert(r.sessionId, r.message)
  })
  return {
    db,
    createSession: (id) => newSession.run(id, 'bench', Date.now()),
    append: (sessionId, m) => one.immediate(sessionId, m),
    appendMany: (rows) => many.immediate(rows),
    close: () => db.close(),
  }
}

/** File size after a TRUNCATE checkpoint (the WAL is then empty). */
export function checkpoint(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)')
}

/** Bytes per table/index (dbstat), largest first, with FTS shadow tables folded into their FTS table. */
export function bytesByObject(db: Db): { name: string; bytes: number }[] {
  const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all() as {
    name: string
    bytes: number
  }[]
  return rows.sort((a, b) => b.bytes - a.bytes)
}
