import { pgTable, uuid } from 'drizzle-orm/pg-core'

/**
 * PostgreSQL only: one row per write transaction, inserted in it, so a writer whose COMMIT lost its
 * connection can ask whether the write happened. (A one-statement append keeps its token in the rows'
 * `ref` instead: see append.ts.) Tokens are time-ordered (see drivers/pg-write-tokens.ts) and pruned after an hour.
 */
export const writeTokens = pgTable('write_tokens', {
  token: uuid('token').primaryKey(),
})
