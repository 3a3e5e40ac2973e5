import { sql } from 'drizzle-orm'
import { bigint, customType, text } from 'drizzle-orm/pg-core'
import { parserText, SEARCH_CONFIG } from '../search-config.ts'

/** Milliseconds since the epoch and counters: past 2^31, read back as JavaScript numbers. */
export const int = (name: string) => bigint(name, { mode: 'number' })

/** A row id: an identity column, so ids are assigned in insertion order as SQLite's rowid is. */
export const rowId = (name: string) => int(name).primaryKey().generatedByDefaultAsIdentity()

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * Characters of a row the search vector holds: a tsvector is at most 1 MB, which a row of a few hundred
 * thousand distinct words would pass (and the write would fail). SQLite's FTS5 indexes the whole row.
 */
const INDEXED_CHARS = 262_144

/**
 * The search vector of a row: its index text (the JavaScript CJK split) or its plain text, as
 * SEARCH_CONFIG lexemes of its parserText. Kept by PostgreSQL itself, so every writer agrees.
 */
export const searchVector = (text: string) =>
  tsvector('search_vector').generatedAlwaysAs(
    sql.raw(
      `to_tsvector('${SEARCH_CONFIG}'::regconfig, ${parserText(`left(coalesce(search_text, ${text}, ''), ${INDEXED_CHARS})`)})`,
    ),
  )

/**
 * The row's session's user, copied by trigger (migration 0005) so the search index can hold it: the GIN
 * index over (user_id, search_vector) (btree_gin) answers a user-scoped search with that user's rows only.
 * Kept by PostgreSQL itself on every insert and on a session's user changing; never written by the store.
 */
export const ownerId = () => text('user_id')
