import type { SyncConnection, SyncStatement } from './sync-sqlite.ts'

interface LibsqlStatement extends SyncStatement {
  /** `table` is null for a column computed by an expression. */
  columns(): { name: string; table: string | null }[]
}

const QUERY = /^\s*(?:SELECT|WITH)\b/i
const RETURNING = /\bRETURNING\b/i
// A NUL-free prefix for the helper columns, so they cannot clash with a real one.
const HELPER = '\u0001'

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** For each column: its bytes when it is text holding a NUL, else NULL. */
const byteColumns = (names: readonly string[]) =>
  names
    .map(
      (name) =>
        `CASE WHEN typeof(${quote(name)}) = 'text' AND instr(${quote(name)}, char(0)) > 0 THEN CAST(${quote(name)} AS BLOB) END AS ${quote(HELPER + name)}`,
    )
    .join(', ')

/** 1 when any column of the row holds a NUL byte. */
const nulFlag = (names: readonly string[]) =>
  `CASE WHEN ${names.map((name) => `instr(${quote(name)}, char(0)) > 0`).join(' OR ')} THEN 1 ELSE 0 END AS ${quote(HELPER)}`

/** The rows with the cut strings replaced by their bytes, decoded. */
function restore(rows: unknown[], names: readonly string[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const record = row as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const name of names) {
      const bytes = record[HELPER + name]
      out[name] = bytes == null ? record[name] : Buffer.from(bytes as Uint8Array).toString('utf8')
    }
    return out
  })
}

/**
 * A query run in two steps: with one flag column saying whether a row holds a NUL, and, only when one does,
 * again with a column of bytes per column. A flattened subquery reads a table column again cheaply but
 * would compute an expression (a snippet, a large excerpt) again: such queries are materialized first.
 */
function flaggedQuery(db: SyncConnection, sql: string, names: string[], computed: boolean): SyncStatement {
  const from = `WITH ${quote(HELPER)} AS ${computed ? 'MATERIALIZED ' : ''}(${sql.trim().replace(/;$/, '')})`
  const flagged = db.prepare(`${from} SELECT *, ${nulFlag(names)} FROM ${quote(HELPER)}`)
  let withBytes: SyncStatement | undefined
  return {
    reader: true,
    all: (params) => {
      const rows = flagged.all(params) as Record<string, unknown>[]
      if (rows.some((row) => row[HELPER] === 1)) {
        withBytes ??= db.prepare(`${from} SELECT *, ${byteColumns(names)} FROM ${quote(HELPER)}`)
        return restore(withBytes.all(params), names)
      }
      for (const row of rows) delete row[HELPER]
      return rows
    },
    run: (params) => flagged.run(params),
  }
}

/** A write with RETURNING, whose list names columns of the table written: the byte columns can too. */
function returningWrite(db: SyncConnection, sql: string, names: string[]): SyncStatement {
  const helped = db.prepare(`${sql.trim().replace(/;$/, '')}, ${byteColumns(names)}`)
  return {
    reader: true,
    all: (params) => restore(helped.all(params), names),
    run: (params) => helped.run(params),
  }
}

/**
 * libSQL's binding cuts text at its first NUL on the way out (the stored bytes are whole). Queries are run
 * with a flag column and re-run with the bytes of such text when a row holds one; writes with RETURNING
 * return those bytes at once. Cost: one scan of each value returned. A statement the rewrite does not fit
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
        if (QUERY.test(sql))
          return flaggedQuery(
            db,
            sql,
            names,
            columns.some((c) => c.table === null),
          )
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
