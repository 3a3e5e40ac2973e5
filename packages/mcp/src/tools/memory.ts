import type { MemoryOperation } from '@engram/agent'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { ToolDeps } from '../deps.ts'
import { TARGETS, viewMemoryFile } from '../memory-view.ts'
import { guarded } from '../tool-result.ts'
import { READ_ONLY, scopeShape } from './shared.ts'

const MAX_OPERATIONS = 20
const entry = z.string().min(1).max(10_000)
const oldText = z
  .string()
  .min(1)
  .max(1_000)
  .describe('A part of the existing entry that no other entry contains')

const operation = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('add'), content: entry.describe('The new entry') }),
  z.strictObject({
    action: z.literal('replace'),
    old_text: oldText,
    content: entry.describe('The new text'),
  }),
  z.strictObject({ action: z.literal('remove'), old_text: oldText }),
])

const usageShape = { chars: z.number(), limit: z.number(), entries: z.number() }

/** `memory` (writes; left out of a read-only server) and `memory_show`. */
export function registerMemoryTools(
  server: McpServer,
  deps: ToolDeps,
  options: { writable: boolean; onWrite: () => void },
): void {
  const { memory, scope } = deps
  if (options.writable) {
    server.registerTool(
      'memory',
      {
        title: 'Edit long-term memory',
        description: [
          'Adds, replaces or removes entries of MEMORY.md (target "memory": your notes on environment, projects, conventions, lessons) or USER.md (target "user": who the user is and what they prefer).',
          'The operations are applied together, all or nothing. replace/remove find the entry by old_text.',
          'Each file has a character cap: when a write is refused as over the cap, consolidate in one batch (remove or merge entries, then add).',
          'One short fact per entry; never instructions, secrets or credentials (they are refused).',
        ].join(' '),
        inputSchema: z.strictObject({
          target: z.enum(TARGETS).describe('"memory" (MEMORY.md) or "user" (USER.md)'),
          operations: z.array(operation).min(1).max(MAX_OPERATIONS),
        }),
        outputSchema: z.object({
          ...scopeShape,
          target: z.enum(TARGETS),
          changed: z.boolean(),
          ...usageShape,
          needsConsolidation: z.boolean(),
        }),
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false,
        },
      },
      ({ target, operations }) =>
        guarded('memory', scope, async () => {
          const result = await memory.apply(target, operations as MemoryOperation[])
          if (result.changed) options.onWrite()
          const { summary, ...data } = result
          return { text: summary, data }
        }),
    )
  }

  server.registerTool(
    'memory_show',
    {
      title: 'Show long-term memory',
      description:
        'Shows the current entries of MEMORY.md and USER.md (or one of them) with their usage; entries that look hostile are shown as [BLOCKED].',
      inputSchema: z.strictObject({
        target: z.enum(TARGETS).optional().describe('One file; both when omitted'),
      }),
      outputSchema: z.object({
        ...scopeShape,
        files: z.array(
          z.object({
            target: z.enum(TARGETS),
            file: z.string(),
            entries: z.array(z.string()),
            chars: z.number(),
            limit: z.number(),
          }),
        ),
      }),
      annotations: READ_ONLY,
    },
    ({ target }) =>
      guarded('memory_show', scope, async () => {
        const views = await Promise.all((target ? [target] : TARGETS).map((t) => viewMemoryFile(memory, t)))
        return {
          text: views.map((v) => v.text).join('\n\n'),
          data: {
            files: views.map(({ text: _text, ...file }) => file),
          },
        }
      }),
  )
}
