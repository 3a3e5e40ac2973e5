import { getTableColumns, type Table } from 'drizzle-orm'

/** A row as SQL returns it: values under the columns' SQL names. */
export type SqlRow = Record<string, unknown>

/**
 * The column list and decoder of a table, from its drizzle schema: renaming or adding a column changes
 * the SQL and the decoded object together. `omit` leaves out columns that are not part of the public type.
 */
export function rowCodec<T, K extends string = never>(table: Table, omit: readonly K[] = []) {
  const columns = Object.entries(getTableColumns(table))
    .filter(([key]) => !omit.includes(key as K))
    .map(([key, column]) => [key, column.name, column] as const)
  return {
    /** `alias.column, ...` for a SELECT (or bare names without an alias). */
    columns: (alias?: string) => columns.map(([, name]) => (alias ? `${alias}.${name}` : name)).join(', '),
    /** The row under the columns' TypeScript names, each value read as drizzle reads it (JSON columns parsed). */
    decode: (row: SqlRow): T => {
      const decoded: Record<string, unknown> = {}
      for (const [key, name, column] of columns) {
        const value = row[name]
        decoded[key] = value === null || value === undefined ? value : column.mapFromDriverValue(value)
      }
      return decoded as T
    },
  }
}
