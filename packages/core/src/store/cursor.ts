import { EngramError } from '../errors.ts'

/** A keyset cursor: the sort key of the last row of a page, as opaque base64url text. */
export const encodeCursor = (key: readonly number[]): string =>
  Buffer.from(JSON.stringify(key)).toString('base64url')

/** The sort key a cursor holds; refuses a cursor that is not one of ours, or one given with an offset. */
export function decodeCursor(cursor: string, length: number, offset: number, action: string): number[] {
  let key: unknown
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    key = undefined
  }
  if (!Array.isArray(key) || key.length !== length || !key.every((n) => Number.isFinite(n))) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `${action}: cursor ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of this list. Pass the nextCursor of the previous page, or omit it for the first page.`,
    )
  }
  if (offset !== 0) {
    throw new EngramError('INVALID_ARGUMENT', `${action}: pass either cursor or offset, not both.`)
  }
  return key as number[]
}
