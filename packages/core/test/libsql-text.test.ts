import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StorageDriver } from '../src/driver.ts'
import { libsqlDriver } from '../src/drivers/libsql.ts'
import { tempDbPath, tempDir } from './helpers.ts'

// Whatever a column's declared type, SQLite stores any value in it: text with NULs, non-ASCII text, integers,
// reals, blobs, NULL. better-sqlite3 reads the same file as the oracle.
const text = fc.string({
  unit: fc.oneof(fc.constant('\0'), fc.constantFrom('a', 'é', '数', '😀'), fc.string({ maxLength: 1 })),
  maxLength: 40,
})
const value = fc.oneof(
  text,
  text.map((t) => `${t}\0${t}`),
  fc.integer(),
  // Reals both SQLite versions turn into the same text (they differ on 17-digit ones).
  fc.integer().map((i) => i / 4),
  // Valid UTF-8 only: the binding aborts the process on text (a blob made text by ||) that is not.
  text.map((t) => Buffer.from(t)),
  fc.constant(null),
)
const row = fc.tuple(value, value, value, value, value)

describe('libSQL returns every value of any column whole', () => {
  const path = tempDbPath(tempDir())
  let oracle: Database.Database
  let driver: StorageDriver

  beforeAll(() => {
    oracle = new Database(path)
    oracle.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER, s TEXT, r REAL, b BLOB, u)')
    driver = libsqlDriver({ url: path })
  })
  afterAll(async () => {
    await driver.close()
    oracle.close()
  })

  it('in table columns, expressions and RETURNING, as better-sqlite3 reads them', async () => {
    const queries = [
      'SELECT i, s, r, b, u FROM t WHERE k = ?',
      "SELECT i || '' AS i2, s, upper(s) AS up, coalesce(u, b) AS ub, r * 2 AS r2 FROM t WHERE k = ?",
    ]
    let n = 0
    await fc.assert(
      fc.asyncProperty(row, async (values) => {
        n += 1
        const [written] = (
          await driver.execute({
            sql: 'INSERT INTO t (k, i, s, r, b, u) VALUES (?, ?, ?, ?, ?, ?) RETURNING i, s, r, b, u',
            params: [n, ...values],
          })
        ).rows
        const expected = (sql: string) => oracle.prepare(sql).all(n)
        expect([written]).toEqual(expected(queries[0] as string))
        for (const sql of queries)
          expect((await driver.execute({ sql, params: [n] })).rows).toEqual(expected(sql))
      }),
      { numRuns: 300 },
    )
    expect(n).toBeGreaterThanOrEqual(300)
  })
})
