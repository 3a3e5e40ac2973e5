import { randomUUID } from 'node:crypto'

/**
 * Idempotency tokens of PostgreSQL write transactions. A transaction stores its token (a `write_tokens`
 * row); a writer whose COMMIT lost its connection then asks for the token instead of guessing. (Asking `pg_xact_status` about the
 * transaction id is not enough: an id the crashed server never logged is handed out again after recovery,
 * and then answers for another transaction.)
 */

/** How long a token is kept: far longer than any retry of its write waits (the driver asks for 30 s). */
const RETENTION_MS = 3_600_000
/** About one write in this many also deletes the expired tokens, in the same round trip. */
const PRUNE_ONE_IN = 1000

/** 48 bits of milliseconds as the first 12 hex digits of a UUID, so tokens sort by time. */
const timePrefix = (ms: number) => {
  const hex = Math.max(0, Math.trunc(ms)).toString(16).padStart(12, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`
}

/**
 * A new token: a random UUID whose first 48 bits are the time, so expired ones are a range of the
 * primary key. 74 random bits stay: two writers drawing the same token in one millisecond is not a risk.
 */
export const newWriteToken = (now = Date.now()) => `${timePrefix(now)}${randomUUID().slice(13)}`

/**
 * The SQL (literals only: a token is hex and dashes) that deletes tokens past their retention, about one
 * call in PRUNE_ONE_IN; '' otherwise.
 */
export function pruneTokensIfDue(now = Date.now(), draw = Math.random): string {
  if (draw() >= 1 / PRUNE_ONE_IN) return ''
  return `DELETE FROM write_tokens WHERE token < '${timePrefix(now - RETENTION_MS)}-0000-0000-000000000000'`
}

/** Stores a token inside the current transaction (its text is ours, so it is written as a literal). */
export const recordToken = (token: string) => `INSERT INTO write_tokens (token) VALUES ('${token}')`

/**
 * Asked after a lost COMMIT: claims the token unless its transaction stored it. Waits for that
 * transaction if it is still running; a row back means it did not commit and now never can.
 */
export const CLAIM_TOKEN =
  'INSERT INTO write_tokens (token) VALUES (?) ON CONFLICT DO NOTHING RETURNING token'
