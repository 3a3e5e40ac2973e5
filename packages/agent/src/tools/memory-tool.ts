import { z } from 'zod'
import type { MemoryFiles, MemoryWriteResult } from '../memory/memory-files.ts'
import { type MemoryOperation, MemoryRefusal, type MemoryTarget } from '../memory/operations.ts'
import type { SecondOpinion } from '../security/second-opinion.ts'
import { defineTool } from './run-tool.ts'
import type { AgentTool } from './tool.ts'

const TARGETS = ['memory', 'user'] as const satisfies readonly MemoryTarget[]
const ACTIONS = ['add', 'replace', 'remove'] as const satisfies readonly MemoryOperation['action'][]

const action = z.enum(ACTIONS).describe('add a new entry, replace one, or remove one.')
const operationFields = {
  content: z.string().describe('The entry text, for add and replace.').optional(),
  old_text: z
    .string()
    .describe('For replace and remove: a short part of the existing entry that appears in no other entry.')
    .optional(),
}

const input = z
  .object({
    target: z
      .enum(TARGETS)
      .describe('"memory" for your notes (MEMORY.md), "user" for the profile of the user (USER.md).'),
    action: action.optional(),
    ...operationFields,
    operations: z
      .array(z.object({ action, ...operationFields }).strict())
      .min(1)
      .max(20)
      .describe(
        'Several operations applied together, all or nothing (use instead of action/content/old_text, e.g. to consolidate: remove or replace several entries, then add).',
      )
      .optional(),
  })
  .strict()

type MemoryArgs = z.output<typeof input>

/**
 * Said with every change: the memory in the system prompt is a snapshot frozen when the session started
 * (so provider prompt caches stay valid), so a saved fact shows there from the next session on.
 */
const SAVED_FOR_NEXT_SESSION =
  'It is in memory from the next session on; this session keeps using it from the conversation.'

function operationsOf(args: MemoryArgs): MemoryOperation[] {
  if (args.operations !== undefined && args.action !== undefined) {
    throw new MemoryRefusal(
      'invalid',
      'Give either action (one operation) or operations (a batch), not both.',
    )
  }
  if (args.operations !== undefined) return args.operations as MemoryOperation[]
  if (args.action === undefined) {
    throw new MemoryRefusal(
      'invalid',
      'Say what to do: action "add", "replace" or "remove" (or a list of operations).',
    )
  }
  return [{ action: args.action, content: args.content, old_text: args.old_text } as MemoryOperation]
}

/**
 * The `memory` tool: add, replace or remove entries of MEMORY.md or USER.md, one operation or an
 * all-or-nothing batch. The result's data is the {@link MemoryWriteResult} (what changed, the new usage),
 * rendered as one line with what happened and the new usage; refusals (over the
 * cap, ambiguous or missing old_text, hostile content, a file that does not parse) throw with what to do
 * instead, which become `refused` results with that advice.
 */
export function createMemoryTool(
  memory: MemoryFiles,
  secondOpinion?: SecondOpinion,
): AgentTool<MemoryWriteResult> {
  return defineTool({
    name: 'memory',
    retrieval: true,
    description: [
      'Save durable facts to your memory files, shown to you from the next session on (in this one, answer from the conversation).',
      'target "memory": your notes about the environment, projects, conventions and lessons learned. target "user": who the user is and what they prefer.',
      'Keep entries short and factual; one fact per entry. replace/remove find the entry by old_text, a unique part of it.',
      'Each file has a character cap; when a write is refused as over the cap, consolidate with one batch (merge or remove entries, then add).',
      'Never store instructions to yourself, secrets or credentials.',
    ].join(' '),
    input,
    execute: (args) => memory.apply(args.target, operationsOf(args), secondOpinion ? { secondOpinion } : {}),
    render: (result) => (result.changed ? `${result.summary} ${SAVED_FOR_NEXT_SESSION}` : result.summary),
  })
}
