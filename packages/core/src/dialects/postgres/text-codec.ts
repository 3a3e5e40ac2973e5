/**
 * PostgreSQL's text cannot hold NUL (U+0000), which SQLite stores and a tool reading a binary file
 * returns. So on PostgreSQL every text the store writes is escaped and every text it reads unescaped,
 * losslessly: NUL is written as ESCAPE + '0', and ESCAPE itself (U+E000, a private-use character, rare in
 * text) as ESCAPE + ESCAPE. Text without either character (nearly all of it) passes untouched; the cost is
 * one scan per text value. A row's search text has NUL as a space instead (search/cjk.ts toSearchText), so
 * the words around a NUL are indexed and snippeted as on SQLite.
 */
import type { QueryResult, Row, SqlValue, Statement, StorageDriver } from '../../driver.ts'

const ESCAPE = '\uE000'
const SPECIAL = /[\0\uE000]/
const SPECIALS = /[\0\uE000]/g
// An escape and what follows it: '0' (a NUL), another escape, or nothing (a text cut after it by substr).
const ESCAPED = /\uE000([\s\S]?)/g

/** The text as PostgreSQL stores it: NUL and the escape character escaped. */
export const escapeText = (text: string): string =>
  SPECIAL.test(text)
    ? text.replace(SPECIALS, (c) => (c === '\0' ? `${ESCAPE}0` : `${ESCAPE}${ESCAPE}`))
    : text

/** The text as it was written (escapeText undone); an escape cut from what followed it is dropped. */
export const unescapeText = (text: string): string =>
  text.includes(ESCAPE)
    ? text.replace(ESCAPED, (_, next: string) => (next === '0' ? '\0' : next === ESCAPE ? ESCAPE : next))
    : text

const escapeParam = (value: SqlValue): SqlValue => (typeof value === 'string' ? escapeText(value) : value)

function escapeStatement(statement: Statement): Statement {
  const { params } = statement
  if (params === undefined || !params.some((p) => typeof p === 'string' && SPECIAL.test(p))) return statement
  return { ...statement, params: params.map(escapeParam) }
}

function unescapeResult<R>(result: QueryResult<R>): QueryResult<R> {
  for (const row of result.rows as Row[]) {
    for (const key in row) {
      const value = row[key]
      if (typeof value === 'string' && value.includes(ESCAPE)) row[key] = unescapeText(value)
    }
  }
  return result
}

/** The driver as the store uses it on PostgreSQL: text escaped on the way in, unescaped on the way out. */
export function escapingDriver(driver: StorageDriver): StorageDriver {
  return {
    name: driver.name,
    capabilities: driver.capabilities,
    dialect: driver.dialect,
    execute: <R = Row>(statement: Statement) =>
      driver.execute<R>(escapeStatement(statement)).then(unescapeResult),
    batch: (statements: readonly Statement[]) =>
      driver.batch(statements.map(escapeStatement)).then((results) => results.map(unescapeResult)),
    close: () => driver.close(),
  }
}
