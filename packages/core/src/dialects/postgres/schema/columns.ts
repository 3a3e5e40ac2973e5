import { sql } from 'drizzle-orm'
import { bigint, customType } from 'drizzle-orm/pg-core'

/** Milliseconds since the epoch and counters: past 2^31, read back as JavaScript numbers. */
export const int = (name: string) => bigint(name, { mode: 'number' })

/** A row id: an identity column, so ids are assigned in insertion order as SQLite's rowid is. */
export const rowId = (name: string) => int(name).primaryKey().generatedByDefaultAsIdentity()

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * The search vector of a row: its index text (the JavaScript CJK split, whose U+200B marks PostgreSQL's
 * parser reads as separators) or its plain text, as `simple` lexemes (no stemming, no stop-words, so a
 * one-character Chinese word is a lexeme of its own). Kept by PostgreSQL itself, so every writer agrees.
 */
export const searchVector = (text: string) =>
  tsvector('search_vector').generatedAlwaysAs(
    sql.raw(`to_tsvector('simple'::regconfig, coalesce(search_text, ${text}, ''))`),
  )
