import type { StoreContext } from './context.ts'

/**
 * Whether a message of this store (not a tool result) was written by `name` (the OpenAI `name` field): such a word in a
 * question names who spoke, and is matched by speaker rather than by text. One probe of the partial
 * index on named messages (messages_name_idx, migration 0008); false on PostgreSQL, which has no such index.
 */
export async function isSpeaker(ctx: StoreContext, name: string): Promise<boolean> {
  if (ctx.dialect === 'postgres') return false
  const rows = await ctx.read<{ n: number }>(
    {
      sql: "SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE name = ? AND role <> 'tool' LIMIT 1)",
      params: [name],
    },
    'Searching messages',
  )
  return (rows[0]?.n ?? 0) > 0
}
