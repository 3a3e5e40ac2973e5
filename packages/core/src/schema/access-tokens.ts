import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Bearer tokens of a shared server (`engram mcp --http`): each names whose data its holder reaches (a user,
 * optionally one of their projects) and whether it may write. Only the SHA-256 of the secret is stored;
 * the secret is shown once, when the token is made. See `access-tokens.ts`.
 */
export const accessTokens = sqliteTable(
  'access_tokens',
  {
    /** The public handle `token list` and `token revoke` use (not secret). */
    id: text('id').primaryKey(),
    /** Hex SHA-256 of the whole secret token. */
    secretHash: text('secret_hash').notNull().unique(),
    userId: text('user_id').notNull(),
    project: text('project'),
    /** 1: the holder reads only. */
    readOnly: integer('read_only').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    /** Milliseconds since the epoch; null: never. */
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('access_tokens_user_idx').on(t.userId)],
)
