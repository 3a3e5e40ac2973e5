import { bigint, pgTable, uuid } from 'drizzle-orm/pg-core'

/**
 * PostgreSQL only: one row per write, inserted in the write's own transaction, so a writer whose COMMIT
 * (or single statement) lost its connection can ask whether the write happened, and a retry can never
 * store it twice. Tokens are time-ordered (see write-tokens.ts) and pruned after an hour.
 */
export const writeTokens = pgTable('write_tokens', {
  token: uuid('token').primaryKey(),
  /** The message ids a one-statement append assigned, so a retry that finds the token can return them. */
  ids: bigint('ids', { mode: 'number' }).array(),
})
