import { EngramError } from '../errors.ts'

const MAX_LIMIT = 1000

/** Validated `limit` and `offset`, with the caller's default limit. */
export function checkPaging(
  options: { limit?: number; offset?: number },
  defaultLimit: number,
): { limit: number; offset: number } {
  const limit = options.limit ?? defaultLimit
  const offset = options.offset ?? 0
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `limit must be a whole number from 1 to ${MAX_LIMIT} (got ${limit}).`,
    )
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new EngramError('INVALID_ARGUMENT', `offset must be a whole number of at least 0 (got ${offset}).`)
  }
  return { limit, offset }
}
