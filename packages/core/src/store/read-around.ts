import { z } from 'zod'
import type { ReadAroundOptions, StoredMessage } from '../types.ts'
import { parse, wholeNumber } from '../validation.ts'
import type { StoreContext } from './context.ts'
import { decodeStoredMessage, STORED_MESSAGE_COLUMNS, type StoredMessageRow } from './message-codec.ts'

/** The most messages read on each side of the one asked for. */
const MAX_SIDE = 100

const side = wholeNumber(0).max(MAX_SIDE, `must be a whole number from 0 to ${MAX_SIDE}`)
const readAroundArgs = z.object({
  messageId: wholeNumber(1),
  before: side.default(2),
  after: side.default(2),
})

const COLUMNS = STORED_MESSAGE_COLUMNS.split(', ')
  .map((column) => `m.${column}`)
  .join(', ')

/**
 * A message and up to `before` / `after` messages of its session around it, in insertion order: three
 * indexed range reads of at most `before + 1 + after` rows, whatever the session's length. Empty when no
 * message has that id.
 */
export async function readAround(
  ctx: StoreContext,
  messageId: number,
  options: ReadAroundOptions = {},
): Promise<StoredMessage[]> {
  const action = 'Reading messages around a message'
  const { before, after } = parse(readAroundArgs, { messageId, ...options }, action)
  const rows = await ctx.read<StoredMessageRow>(
    {
      sql: `WITH hit AS (SELECT id, session_id FROM messages WHERE id = ?)
        SELECT * FROM (SELECT ${COLUMNS} FROM hit JOIN messages m ON m.session_id = hit.session_id AND m.id < hit.id
          ORDER BY m.id DESC LIMIT ?) before
        UNION ALL SELECT ${COLUMNS} FROM hit JOIN messages m ON m.id = hit.id
        UNION ALL SELECT * FROM (SELECT ${COLUMNS} FROM hit JOIN messages m ON m.session_id = hit.session_id AND m.id > hit.id
          ORDER BY m.id LIMIT ?) after
        ORDER BY id`,
      params: [messageId, before, after],
    },
    action,
  )
  return rows.map(decodeStoredMessage)
}
