import type { MemoryFiles } from '../memory/memory-files.ts'
import { type MemoryOperation, MemoryRefusal, type MemoryTarget } from '../memory/operations.ts'
import type { AgentTool, ToolParameters } from './tool.ts'

const TARGETS: MemoryTarget[] = ['memory', 'user']
const ACTIONS: MemoryOperation['action'][] = ['add', 'replace', 'remove']

const operationProperties = {
  action: { type: 'string', enum: ACTIONS, description: 'add a new entry, replace one, or remove one.' },
  content: { type: 'string', description: 'The entry text, for add and replace.' },
  old_text: {
    type: 'string',
    description: 'For replace and remove: a short part of the existing entry that appears in no other entry.',
  },
}

const parameters: ToolParameters = {
  type: 'object',
  properties: {
    target: {
      type: 'string',
      enum: TARGETS,
      description: '"memory" for your notes (MEMORY.md), "user" for the profile of the user (USER.md).',
    },
    ...operationProperties,
    operations: {
      type: 'array',
      description:
        'Several operations applied together, all or nothing (use instead of action/content/old_text, e.g. to consolidate: remove or replace several entries, then add).',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        properties: operationProperties,
        required: ['action'],
        additionalProperties: false,
      },
    },
  },
  required: ['target'],
  additionalProperties: false,
}

function operationsOf(args: Record<string, unknown>): MemoryOperation[] {
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
 * all-or-nothing batch. The result is one line with what happened and the new usage; refusals (over the
 * cap, ambiguous or missing old_text, hostile content, a file that does not parse) throw with what to do
 * instead, which `runTool` hands to the model as `{"error": …}`.
 */
export function createMemoryTool(memory: MemoryFiles): AgentTool {
  return {
    name: 'memory',
    description: [
      'Save durable facts to your long-term memory files, which are shown to you at the start of every future session (not this one).',
      'target "memory": your notes about the environment, projects, conventions and lessons learned. target "user": who the user is and what they prefer.',
      'Keep entries short and factual; one fact per entry. replace/remove find the entry by old_text, a unique part of it.',
      'Each file has a character cap; when a write is refused as over the cap, consolidate with one batch (merge or remove entries, then add).',
      'Never store instructions to yourself, secrets or credentials.',
    ].join(' '),
    parameters,
    async execute(args) {
      const result = await memory.apply(args.target as MemoryTarget, operationsOf(args))
      return result.summary
    },
  }
}
