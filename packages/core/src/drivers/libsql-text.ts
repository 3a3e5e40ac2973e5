import type { SyncConnection, SyncStatement } from './sync-sqlite.ts'

interface LibsqlStatement extends SyncStatement {
  /** `table` and `type` are null for a column computed by an expression. */
  columns(): { name: string; table: string | null; type: string | null }[]
  /** Rows as arrays of values in column order. */
  raw(on: boolean): LibsqlStatement
}

interface Column {
  name: string
  table: string | null
  type: string | null
}

const QUERY = /^\s*(?:SELECT|WITH)\b/i
const RETURNING = /\bRETURNING\b/i
// A NUL-free prefix for the helper columns, so they cannot clash with a real one.
const HELPER = '\u0001'

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * How a column is checked, by SQLite's affinity rules for its declared type: a TEXT column holds text or
 * NULL, whose bytes octet_length reads from the record; a numeric one rarely holds text, so a string in it
 * is checked in JS alone; any other column (BLOB, untyped, an expression) is asked its type first.
 */
function kind({ type }: Column): 'text' | 'numeric' | 'any' {
  const declared = (type ?? '').toUpperCase()
  if (declared.includes('INT')) return 'numeric'
  if (/CHAR|CLOB|TEXT/.test(declared)) return 'text'
  if (declared === '' || declared.includes('BLOB')) return 'any'
  return 'numeric'
}

/** For each column: its bytes when it is text holding a NUL, else NULL. */
const byteColumns = (names: readonly string[]) =>
  names
    .map(
      (name) =>
        `CASE WHEN typeof(${quote(name)}) = 'text' AND instr(${quote(name)}, char(0)) > 0 THEN CAST(${quote(name)} AS BLOB) END AS ${quote(HELPER + name)}`,
    )
    .join(', ')

/** The number of UTF-8 bytes in the row's text, as stored (octet_length reads a length, not the text). */
const storedBytes = (columns: readonly Column[]) =>
  columns
    .map((column) => {
      const name = quote(column.name)
      const k = kind(column)
      if (k === 'text') return `ifnull(octet_length(${name}), 0)`
      return k === 'any' ? `iif(typeof(${name}) = 'text', octet_length(${name}), 0)` : '0'
    })
    .join(' + ')

/**
 * Whether the row's strings hold fewer UTF-8 bytes than stored, i.e. one was cut at a NUL. A string has at
 * least as many bytes as UTF-16 units, so equal sums settle it without counting bytes (ASCII text); a string
 * in a numeric column is not counted in SQL, so it is always taken as possibly cut.
 */
function isCut(values: readonly unknown[], numeric: readonly boolean[], stored: number): boolean {
  let units = 0
  for (let i = 0; i < numeric.length; i++) {
    const value = values[i]
    if (typeof value !== 'string') continue
    if (numeric[i]) return true
    units += value.length
  }
  if (units === stored) return false
  let bytes = 0
  for (let i = 0; i < numeric.length; i++) {
    const value = values[i]
    if (typeof value === 'string') bytes += Buffer.byteLength(value)
  }
  return bytes !== stored
}

/** Rows given as arrays of values, then one byte column per name: objects with the cut strings decoded. */
function restore(rows: unknown[][], names: readonly string[]): Record<string, unknown>[] {
  return rows.map((values) => {
    const out: Record<string, unknown> = {}
    for (let i = 0; i < names.length; i++) {
      const bytes = values[names.length + i]
      out[names[i] as string] = bytes == null ? values[i] : Buffer.from(bytes as Uint8Array).toString('utf8')
    }
    return out
  })
}

/** Rows given as arrays of values: objects keyed by the names (extra values, the helper's, left out). */
function toObjects(rows: unknown[][], names: readonly string[]): Record<string, unknown>[] {
  return rows.map((values) => {
    const out: Record<string, unknown> = {}
    for (let i = 0; i < names.length; i++) out[names[i] as string] = values[i]
    return out
  })
}

/**
 * A query run in two steps: with one column counting the bytes of the row's text as stored, compared with
 * the strings returned, and, only when a row's differ, again with a column of bytes per column. Rows are read
 * as arrays and made objects in JS, which is cheaper than the binding's objects. A flattened subquery reads a
 * table column again cheaply but would compute an expression (a snippet, a large excerpt) again: such
 * queries are materialized first.
 */
function flaggedQuery(db: SyncConnection, sql: string, columns: Column[]): SyncStatement {
  const names = columns.map((c) => c.name)
  const numeric = columns.map((c) => kind(c) === 'numeric')
  const computed = columns.some((c) => c.table === null)
  const from = `WITH ${quote(HELPER)} AS ${computed ? 'MATERIALIZED ' : ''}(${sql.trim().replace(/;$/, '')})`
  const counted = (
    db.prepare(
      `${from} SELECT *, ${storedBytes(columns)} AS ${quote(HELPER)} FROM ${quote(HELPER)}`,
    ) as LibsqlStatement
  ).raw(true)
  let withBytes: LibsqlStatement | undefined
  return {
    reader: true,
    all: (params) => {
      const rows = counted.all(params) as unknown[][]
      if (rows.some((values) => isCut(values, numeric, values[names.length] as number))) {
        withBytes ??= (
          db.prepare(`${from} SELECT *, ${byteColumns(names)} FROM ${quote(HELPER)}`) as LibsqlStatement
        ).raw(true)
        return restore(withBytes.all(params) as unknown[][], names)
      }
      return toObjects(rows, names)
    },
    run: (params) => counted.run(params),
  }
}

/** A write with RETURNING, whose list names columns of the table written: the byte columns can too. */
function returningWrite(db: SyncConnection, sql: string, names: string[]): SyncStatement {
  const helped = (
    db.prepare(`${sql.trim().replace(/;$/, '')}, ${byteColumns(names)}`) as LibsqlStatement
  ).raw(true)
  return {
    reader: true,
    all: (params) => restore(helped.all(params) as unknown[][], names),
    run: (params) => helped.run(params),
  }
}

/**
 * libSQL's binding cuts text at its first NUL on the way out (the stored bytes are whole). Queries are run
 * with a column counting the stored bytes of the row's text and re-run with the bytes of each text when a
 * row's strings come back shorter; writes with RETURNING return those bytes at once. Cost: one octet_length
 * per text column in SQL and one length per string in JS (a UTF-8 count for non-ASCII rows), about 10% of a
 * read of 1,000 messages; a row with a NUL costs a second run. A statement the rewrite does not fit
 * (duplicate column names, expressions in RETURNING) runs as written.
 */
export function completeText(db: SyncConnection): SyncConnection {
  return {
    prepare(sql) {
      const statement = db.prepare(sql) as LibsqlStatement
      if (!statement.reader) return statement
      const columns = statement.columns()
      const names = columns.map((c) => c.name)
      if (names.length === 0 || new Set(names).size !== names.length) return statement
      try {
        if (QUERY.test(sql)) return flaggedQuery(db, sql, columns)
        if (RETURNING.test(sql)) return returningWrite(db, sql, names)
      } catch {
        // Not a statement the rewrite fits: it runs as written.
      }
      return statement
    },
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  }
}
