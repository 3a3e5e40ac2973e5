import { createHash, randomBytes } from 'node:crypto'
import { and, desc, eq, isNull } from 'drizzle-orm'
import { EngramError } from './engram-error.ts'
import { accessTokens } from './schema/access-tokens.ts'
import type { Store } from './store/store.ts'

/**
 * Bearer tokens of a shared server: a token names a user (and optionally one of their projects) and
 * whether its holder may write; the server takes the scope from the token, never from a request. A token
 * is `engram_` followed by 32 random bytes (base64url); the store keeps only its SHA-256, so a copy of the
 * database hands out no token. The secret is returned once, by createAccessToken.
 */

const PREFIX = 'engram_'
const SECRET_BYTES = 32
const ID = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/

/** A token as listed: everything but its secret. */
export interface AccessToken {
  id: string
  userId: string
  project: string | null
  readOnly: boolean
  createdAt: number
  expiresAt: number | null
  revokedAt: number | null
}

export interface NewAccessToken {
  userId: string
  project?: string | null
  readOnly?: boolean
  /** Milliseconds since the epoch; absent: it never expires. */
  expiresAt?: number | null
}

const hashOf = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex')

function checkId(value: string, what: string): string {
  if (!ID.test(value))
    throw new EngramError(
      'INVALID_ARGUMENT',
      `The token's ${what} ${JSON.stringify(value)} is not an id: use 1 to 128 letters, digits or ._@+- (starting with a letter or digit).`,
    )
  return value
}

type Row = typeof accessTokens.$inferSelect

const toToken = (row: Row): AccessToken => ({
  id: row.id,
  userId: row.userId,
  project: row.project,
  readOnly: Number(row.readOnly) === 1,
  createdAt: Number(row.createdAt),
  expiresAt: row.expiresAt === null ? null : Number(row.expiresAt),
  revokedAt: row.revokedAt === null ? null : Number(row.revokedAt),
})

/** Makes a token and returns it with its secret: the only time the secret exists outside its holder. */
export async function createAccessToken(
  store: Store,
  input: NewAccessToken,
  now = Date.now(),
): Promise<{ token: AccessToken; secret: string }> {
  const userId = checkId(input.userId, 'user id')
  const project = input.project ? checkId(input.project, 'project id') : null
  if (input.expiresAt != null && !(Number.isSafeInteger(input.expiresAt) && input.expiresAt > now))
    throw new EngramError('INVALID_ARGUMENT', 'A token must expire in the future (expiresAt after now).')
  const secret = `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`
  const row: Row = {
    id: `tok_${randomBytes(6).toString('hex')}`,
    secretHash: hashOf(secret),
    userId,
    project,
    readOnly: input.readOnly ? 1 : 0,
    createdAt: now,
    expiresAt: input.expiresAt ?? null,
    revokedAt: null,
  }
  await store.db.insert(accessTokens).values(row)
  return { token: toToken(row), secret }
}

/** Every token, newest first (revoked and expired ones too: the list says which). */
export async function listAccessTokens(store: Store): Promise<AccessToken[]> {
  const rows = await store.db.select().from(accessTokens).orderBy(desc(accessTokens.createdAt))
  return rows.map(toToken)
}

/** Revokes the token with this id; false when there is none (or it was revoked already). */
export async function revokeAccessToken(store: Store, id: string, now = Date.now()): Promise<boolean> {
  const rows = await store.db
    .update(accessTokens)
    .set({ revokedAt: now })
    .where(and(eq(accessTokens.id, id), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id })
  return rows.length > 0
}

/**
 * The token a presented secret is, or null when it is none, revoked or expired: one indexed read of the
 * secret's hash (no secret is compared character by character).
 */
export async function verifyAccessToken(
  store: Store,
  secret: string,
  now = Date.now(),
): Promise<AccessToken | null> {
  if (!secret.startsWith(PREFIX) || secret.length > 200) return null
  const [row] = await store.db
    .select()
    .from(accessTokens)
    .where(eq(accessTokens.secretHash, hashOf(secret)))
    .limit(1)
  if (!row) return null
  const token = toToken(row)
  if (token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt <= now)) return null
  return token
}
