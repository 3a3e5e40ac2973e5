import { redactSecrets } from '@engram/compressor'
import { EngramError } from '@engram/core'
import { z } from 'zod'
import type { ToolParameters } from '../providers/types.ts'
import type { AgentTool, ToolContext, ToolDefinition, ToolErrorCode, ToolResult } from './tool.ts'

/** A failed result; the message is redacted of secrets, since the model and the store both see it. */
export function toolError(code: ToolErrorCode, message: string): ToolResult<never> {
  return { ok: false, error: { code, message: redactSecrets(message) } }
}

/** The text the model is sent for a result (and the store keeps): the content, or `{"error": "<message>"}`. */
export function toolResultText(result: ToolResult): string {
  return result.ok ? result.content : JSON.stringify({ error: result.error.message })
}

/** The JSON Schema of a tool's input, as both SDKs take it (no `$schema` key; an object at the top). */
function parametersOf(input: z.ZodObject): ToolParameters {
  const { $schema: _, ...schema } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'throw' })
  return { type: 'object', properties: {}, ...schema } as ToolParameters
}

type Issue = z.core.$ZodIssue

const pathOf = (path: readonly PropertyKey[]) =>
  path.reduce<string>(
    (at, key) => (typeof key === 'number' ? `${at}[${key}]` : `${at}.${String(key)}`),
    'arguments',
  )

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`)

/** The property names the schema knows at `path` (for "not a parameter" errors). */
function knownKeys(parameters: ToolParameters, path: readonly PropertyKey[]): string[] {
  let node: Record<string, unknown> | undefined = parameters
  for (const key of path) {
    const next: unknown =
      typeof key === 'number' ? node?.items : (node?.properties as Record<string, unknown>)?.[key as string]
    node = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : undefined
  }
  return Object.keys((node?.properties as Record<string, unknown> | undefined) ?? {})
}

/** One line a model can act on for the first problem zod found. */
function describeIssue(issue: Issue, parameters: ToolParameters): string {
  const at = pathOf(issue.path)
  const got = ` (got ${JSON.stringify(issue.input) ?? 'nothing'})`
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined && issue.path.length > 0) return `${at} is required`
      return `${at} must be ${issue.expected === 'int' ? 'an integer' : article(issue.expected)}${got}`
    case 'invalid_value':
      return `${at} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`
    case 'too_big':
      if (issue.origin === 'array') return `${at} takes at most ${issue.maximum} items`
      if (issue.origin === 'string') return `${at} must be at most ${issue.maximum} characters`
      return `${at} must be at most ${issue.maximum}`
    case 'too_small':
      if (issue.origin === 'array') return `${at} needs at least ${issue.minimum} item(s)`
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? `${at} must not be empty`
          : `${at} must be at least ${issue.minimum} characters`
      return `${at} must be at least ${issue.minimum}`
    case 'unrecognized_keys':
      return `${pathOf([...issue.path, issue.keys[0] as string])} is not a parameter (known: ${knownKeys(parameters, issue.path).join(', ')})`
    default:
      return `${at}: ${issue.message}`
  }
}

/** The arguments as the model sent them: a JSON string (OpenAI), an object (Anthropic), or nothing. */
function parseJson(
  name: string,
  rawArgs: unknown,
): { ok: true; value: unknown } | { ok: false; result: ToolResult<never> } {
  if (rawArgs === undefined || rawArgs === null || rawArgs === '') return { ok: true, value: {} }
  if (typeof rawArgs !== 'string') return { ok: true, value: rawArgs }
  try {
    return { ok: true, value: JSON.parse(rawArgs) }
  } catch (error) {
    return {
      ok: false,
      result: toolError(
        'invalid_arguments',
        `The arguments for ${name} are not valid JSON (${(error as Error).message}). Send one JSON object that matches the tool's schema.`,
      ),
    }
  }
}

/** The result of anything a tool threw: its own refusal message, or a note that it failed unexpectedly. */
function thrownResult(name: string, error: unknown): ToolResult<never> {
  if (error instanceof EngramError) return toolError('refused', `${name}: ${error.message}`)
  const message = error instanceof Error ? error.message : String(error)
  return toolError(
    'failed',
    `${name} failed unexpectedly: ${message}. Do not repeat the same call; try other arguments or tell the user what failed.`,
  )
}

/**
 * A tool from its definition: `parameters` is generated from the zod input schema, and `call` parses the raw
 * arguments, checks them (the first problem is reported as `arguments.<path> …` with what to send instead)
 * and runs `execute`, turning what it throws into an error result. Cost: one schema conversion, once.
 */
export function defineTool<Input extends z.ZodObject, Data>(
  definition: ToolDefinition<Input, Data>,
): AgentTool<Data> {
  const { name, description, input, retrieval, render } = definition
  const parameters = parametersOf(input)
  return {
    name,
    description,
    parameters,
    ...(retrieval ? { retrieval } : {}),
    async call(rawArgs, context) {
      const json = parseJson(name, rawArgs)
      if (!json.ok) return json.result
      const parsed = input.safeParse(json.value, { reportInput: true })
      if (!parsed.success) {
        const problem = describeIssue(parsed.error.issues[0] as Issue, parameters)
        return toolError(
          'invalid_arguments',
          `Invalid arguments for ${name}: ${problem}. Call it again with arguments that match its schema.`,
        )
      }
      try {
        const data = await definition.execute(parsed.data, context)
        return { ok: true, content: render(data), data }
      } catch (error) {
        return thrownResult(name, error)
      }
    },
  }
}

/**
 * Runs one tool call the way the agent loop needs it: never throws, whatever the tool does. Cost: the
 * tool's own.
 */
export async function runTool<Data>(
  tool: AgentTool<Data>,
  rawArgs: unknown,
  context: ToolContext,
): Promise<ToolResult<Data>> {
  try {
    return await tool.call(rawArgs, context)
  } catch (error) {
    return thrownResult(tool.name, error)
  }
}
