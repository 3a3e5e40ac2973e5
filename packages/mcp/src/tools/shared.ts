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
