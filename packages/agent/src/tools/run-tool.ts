import { redactSecrets } from '@engram/compressor'
import { EngramError } from '@engram/core'
import type { AgentTool, ToolContext } from './tool.ts'

/** A JSON Schema node in the subset tool parameters use. */
interface SchemaNode {
  type?: string
  enum?: unknown[]
  properties?: Record<string, unknown>
  required?: string[]
  additionalProperties?: boolean
  items?: unknown
  minItems?: number
  maxItems?: number
  minimum?: number
  maximum?: number
  minLength?: number
}

const TYPE_CHECKS: Record<string, (value: unknown) => boolean> = {
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  integer: Number.isInteger,
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
}

/**
 * The first way `value` breaks `schema`, as `at <path>: <problem>`, or null when it conforms. Covers the
 * keywords tool schemas use (type, enum, properties, required, additionalProperties, items, min/max,
 * minItems/maxItems, minLength); others are ignored.
 */
export function schemaProblem(schema: unknown, value: unknown, path = 'arguments'): string | null {
  const node = (schema ?? {}) as SchemaNode
  const check = node.type ? TYPE_CHECKS[node.type] : undefined
  if (check && !check(value))
    return `${path} must be ${node.type === 'integer' ? 'an integer' : `a ${node.type}`} (got ${JSON.stringify(value) ?? 'nothing'})`
  if (node.enum && !node.enum.includes(value)) {
    return `${path} must be one of ${node.enum.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})`
  }
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) return `${path} must be at least ${node.minimum}`
    if (node.maximum !== undefined && value > node.maximum) return `${path} must be at most ${node.maximum}`
  }
  if (typeof value === 'string' && node.minLength !== undefined && value.length < node.minLength) {
    return `${path} must not be empty`
  }
  if (Array.isArray(value)) {
    if (node.minItems !== undefined && value.length < node.minItems)
      return `${path} needs at least ${node.minItems} item(s)`
    if (node.maxItems !== undefined && value.length > node.maxItems)
      return `${path} takes at most ${node.maxItems} items`
    for (const [i, item] of value.entries()) {
      const problem = schemaProblem(node.items, item, `${path}[${i}]`)
      if (problem) return problem
    }
  }
  if (TYPE_CHECKS.object?.(value) && node.properties) {
    const record = value as Record<string, unknown>
    for (const name of node.required ?? []) {
      if (record[name] === undefined) return `${path}.${name} is required`
    }
    for (const [name, item] of Object.entries(record)) {
      const property = node.properties[name]
      if (property === undefined) {
        if (node.additionalProperties === false) {
          return `${path}.${name} is not a parameter (known: ${Object.keys(node.properties).join(', ')})`
        }
        continue
      }
      const problem = schemaProblem(property, item, `${path}.${name}`)
      if (problem) return problem
    }
  }
  return null
}

const errorResult = (message: string) => JSON.stringify({ error: redactSecrets(message) })

/** The arguments as the model sent them: a JSON string (OpenAI), an object (Anthropic), or nothing. */
function parseArgs(tool: AgentTool, rawArgs: unknown): Record<string, unknown> | string {
  let args = rawArgs
  if (rawArgs === undefined || rawArgs === null || rawArgs === '') args = {}
  else if (typeof rawArgs === 'string') {
    try {
      args = JSON.parse(rawArgs)
    } catch (error) {
      return `The arguments for ${tool.name} are not valid JSON (${(error as Error).message}). Send one JSON object that matches the tool's schema.`
    }
  }
  const problem = schemaProblem(tool.parameters, args)
  if (problem)
    return `Invalid arguments for ${tool.name}: ${problem}. Call it again with arguments that match its schema.`
  return args as Record<string, unknown>
}

/**
 * Runs a tool call the way the agent loop needs it: parses the raw arguments (JSON text or an object),
 * checks them against the tool's schema, executes the tool and returns its text. Never throws: invalid
 * arguments and thrown errors become `{"error": "..."}` with what to do differently (secrets redacted).
 */
export async function runTool(tool: AgentTool, rawArgs: unknown, context: ToolContext): Promise<string> {
  const args = parseArgs(tool, rawArgs)
  if (typeof args === 'string') return errorResult(args)
  try {
    return await tool.execute(args, context)
  } catch (error) {
    if (error instanceof EngramError) return errorResult(`${tool.name}: ${error.message}`)
    const message = error instanceof Error ? error.message : String(error)
    return errorResult(
      `${tool.name} failed unexpectedly: ${message}. Do not repeat the same call; try other arguments or tell the user what failed.`,
    )
  }
}
