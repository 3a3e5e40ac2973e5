/**
 * How PostgreSQL values come back: bigint (counters, ids, milliseconds) and numeric (sums) as JavaScript
 * numbers, like SQLite's integers (both are exact below 2^53, which milliseconds and counts stay under).
 */
export const NUMBER_TYPE_OIDS = [20, 1700] as const

/** The search_path and statement_timeout settings of a connection, as `SET` statements. */
export function sessionSettings(schema: string, statementTimeoutMs: number | undefined): string[] {
  const settings = [`SET search_path TO ${quoteIdentifier(schema)}`]
  if (statementTimeoutMs !== undefined)
    settings.push(`SET statement_timeout = ${Math.trunc(statementTimeoutMs)}`)
  return settings
}

/** The same settings as the `options` of a connection's startup packet (`-c name=value`, spaces escaped). */
export function startupOptions(
  schema: string,
  statementTimeoutMs: number | undefined,
  readonly = false,
): string {
  const settings = [`search_path=${quoteIdentifier(schema)}`]
  if (statementTimeoutMs !== undefined) settings.push(`statement_timeout=${Math.trunc(statementTimeoutMs)}`)
  if (readonly) settings.push('default_transaction_read_only=on')
  return settings.map((s) => `-c ${s.replace(/[\\ ]/g, '\\$&')}`).join(' ')
}

/** A PostgreSQL identifier, double-quoted, so a schema name is never read as SQL. */
const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`
