import type { SyncConnection, SyncStatement } from './sync-sqlite.ts'

interface LibsqlStatement extends SyncStatement {
  columns(): { name: string }[]
}

const QUERY = /^\s*(?:SELECT|WITH)\b/i
const RETURNING = /\bRETURNING\b/i
// A NUL-free prefix for the helper columns, so they cannot clash with a real one.
const HELPER = '\u0001'

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** For each column: its bytes when it is text holding a NUL, else NULL. */
const helperColumns = (names: readonly string[]) =>
  names
    .map(
      (name) =>
        `CASE WHEN typeof(${quote(name)}) = 'text' AND instr(${quote(name)}, char(0)) > 0 THEN CAST(${quote(name)} AS BLOB) END AS ${quote(HELPER + name)}`,
    )
    .join(', ')

function withHelpers(sql: string, names: readonly string[]): string | null {
  const statement = sql.trim().replace(/;$/, '')
  // MATERIALIZED: a flattened subquery would compute each column (a snippet, a large excerpt) three more times.
  if (QUERY.test(statement))
    return `WITH ${quote(HELPER)} AS MATERIALIZED (${statement}) SELECT *, ${helperColumns(names)} FROM ${quote(HELPER)}`
  // RETURNING lists columns of the table written, which the helper columns can name as well.
  if (RETURNING.test(statement)) return `${statement}, ${helperColumns(names)}`
  return null
}

/**
 * libSQL's binding cuts text at its first NUL on the way out (the stored bytes are whole). Each query that
 * returns rows is prepared with a helper column per column carrying the bytes of text that holds a NUL,
 * which replace the cut string; other rows pass through as they are. Cost: one scan of each text value
 * returned. A statement the rewrite does not fit (duplicate column names, expressions in RETURNING) runs
 * as written.
 */
export function completeText(db: SyncConnection): SyncConnection {
  return {
    prepare(sql) {
      const statement = db.prepare(sql) as LibsqlStatement
      if (!statement.reader) return statement
      const names = statement.columns().map((c) => c.name)
      const rewritten = new Set(names).size === names.length ? withHelpers(sql, names) : null
      if (rewritten === null) return statement
      let helped: SyncStatement
      try {
        helped = db.prepare(rewritten)
      } catch {
        return statement
      }
      return {
        reader: true,
        all: (params) =>
          helped.all(params).map((row) => {
            const record = row as Record<string, unknown>
            const out: Record<string, unknown> = {}
            for (const name of names) {
              const bytes = record[HELPER + name]
              out[name] = bytes == null ? record[name] : Buffer.from(bytes as Uint8Array).toString('utf8')
            }
            return out
          }),
        run: (params) => helped.run(params),
      }
    },
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  }
}
