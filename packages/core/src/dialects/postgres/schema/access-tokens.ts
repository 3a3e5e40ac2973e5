import { index, pgTable, text } from 'drizzle-orm/pg-core'
import { int } from './columns.ts'

/** The access_tokens table of the PostgreSQL dialect: the columns of the SQLite schema, in PostgreSQL types. */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: text('id').primaryKey(),
    secretHash: text('secret_hash').notNull().unique(),
    userId: text('user_id').notNull(),
    project: text('project'),
    readOnly: int('read_only').notNull().default(0),
    createdAt: int('created_at').notNull(),
    expiresAt: int('expires_at'),
    revokedAt: int('revoked_at'),
  },
  (t) => [index('access_tokens_user_idx').on(t.userId)],
)
