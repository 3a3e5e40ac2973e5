import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

/** Every result's `scope`: which user (and project) the server searched or changed. */
export const scopeShape = {
  scope: z.object({ user: z.string(), project: z.string().nullable() }),
}

/** Reads only the store or the memory files. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
}

// Node 20 has String.prototype.isWellFormed; TypeScript's ES2023 lib does not declare it yet.
const isWellFormed = (value: string): boolean =>
  (value as unknown as { isWellFormed(): boolean }).isWellFormed()

/**
 * An id a client gives (a conversation, a message, a tool call, a session): 1 to `max` characters of
 * well-formed UTF-16. A lone surrogate is refused: stored as UTF-8 it would become U+FFFD, so `"\ud800"`
 * and `"\udfff"` would name one conversation, and an export would not import again.
 */
export const clientId = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(
      isWellFormed,
      'must be well-formed UTF-16: it holds a lone surrogate (\\ud800-\\udfff without its pair), which would be stored as U+FFFD and collide with other ids. Send the id as well-formed text (in JavaScript, id.toWellFormed()).',
    )
