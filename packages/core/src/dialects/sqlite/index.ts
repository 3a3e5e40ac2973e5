import { sql } from 'drizzle-orm'
import type { Dialect } from '../dialect.ts'
import { graphItemSearch, graphMetadataMatch } from './graph.ts'
import { hitQuery } from './hits.ts'
import { indexedText } from './indexed-text.ts'
import { checkIntegrity, messageIndex, rebuildSearchIndex } from './maintenance.ts'
import { prepareSqlite } from './prepare.ts'
import { isSpeaker, keywordRows, rankedMessages } from './search.ts'
import { deferredIndex } from './unindexed.ts'

// GLOB, not LIKE: case-sensitive like ids, and SQLite turns a literal prefix into a range on the primary key.
const globPrefix = (prefix: string) => `${prefix.replace(/[*?[]/g, '[$&]')}*`

/** SQLite (better-sqlite3, libSQL): FTS5 search, migrations in drizzle/. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  prepare: prepareSqlite,
  hasTable: (name) => ({
    sql: "SELECT count(*) AS present FROM sqlite_master WHERE type = 'table' AND name = ?",
    params: [name],
  }),
  // SQLite stores every text as it is
  storeDriver: (driver) => driver,
  hits: hitQuery,
  keywordRows,
  rankedMessages,
  isSpeaker,
  idPrefix: (column, prefix) => ({ sql: `${column} GLOB ?`, param: globPrefix(prefix) }),
  utcDay: (column) => sql<string>`strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')`,
  // a transaction of one prepared INSERT per message: in process, a statement costs no round trip
  appendRows: null,
  indexedText,
  messageIndex,
  deferredIndex,
  rebuildSearchIndex,
  checkIntegrity,
  graphMetadataMatch,
  graphItemSearch,
}
