import { sql } from 'drizzle-orm'
import type { Dialect } from '../dialect.ts'
import { appendRows } from './append.ts'
import { graphItemSearch, graphMetadataMatch } from './graph.ts'
import { keywordRows, rankedMessages } from './keyword-rows.ts'
import { checkIntegrity } from './maintenance.ts'
import { preparePostgres } from './migrations.ts'
import { pgHitQuery } from './search.ts'
import { escapingDriver } from './text-codec.ts'

/** PostgreSQL (pg, PGlite): tsvector search, migrations in drizzle-pg/. */
export const postgresDialect: Dialect = {
  name: 'postgres',
  prepare: (driver, settings) => preparePostgres(driver, settings.migrationsFolder, settings.create),
  // in the store's schema (the search_path the driver sets)
  hasTable: (name) => ({ sql: 'SELECT to_regclass(?) IS NOT NULL AS present', params: [name] }),
  storeDriver: escapingDriver,
  hits: pgHitQuery,
  keywordRows,
  rankedMessages,
  // no index on the speaker names: a participant named in a question stays a word to match
  isSpeaker: async () => false,
  // starts_with compares the text as it is (PostgreSQL has no GLOB)
  idPrefix: (column, prefix) => ({ sql: `starts_with(${column}, ?)`, param: prefix }),
  utcDay: (column) => sql<string>`to_char(to_timestamp(${column} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  appendRows,
  // every row keeps its search text (null when the content itself is indexed): the vectors are computed from it
  indexedText: (kind) => `coalesce(t.search_text, ${kind === 'message' ? 't.content' : 't.summary'}, '')`,
  // the row carries its index text: PostgreSQL computes its search vectors from search_text itself
  messageIndex: { column: (searchText) => searchText },
  deferredIndex: null,
  rebuildSearchIndex: (updates) => [...updates],
  checkIntegrity,
  graphMetadataMatch,
  graphItemSearch,
}
