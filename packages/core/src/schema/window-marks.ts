import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { sessions } from './sessions.ts'

/**
 * How far each session's conversation windows are indexed (SQLite only; see store/window-index.ts): the
 * windows of the session's messages up to `indexedTo` are in message_windows_fts (migration 0008), later
 * ones are built at query time. A session without a row has none indexed.
 */
export const windowMarks = sqliteTable('window_marks', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => sessions.id, { onDelete: 'cascade' }),
  indexedTo: integer('indexed_to').notNull(),
})
