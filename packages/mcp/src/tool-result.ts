import type { AgentTool, ToolContext } from '@engram/agent'
import { redactSecrets } from '@engram/compressor'
import { EngramError } from '@engram/core'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { type Scope, scopeReport } from './scope.ts'

/** What a tool handler returns: the text the model reads and the same data as fields. */
export interface ToolOutput<T> {
  text: string
  data: T
}

/** A successful result: the text, and the data with the scope that was searched. */
function toolResult<T extends object>(scope: Scope, output: ToolOutput<T>): CallToolResult {
  return {
    content: [{ type: 'text', text: output.text }],
    structuredContent: { scope: scopeReport(scope), ...output.data },
  }
}

/**
 * A refused or failed call as an `isError` result the model can act on. Engram errors carry their own fix;
 * anything else is reported as unexpected. Secrets in either are redacted.
 */
function toolError(name: string, error: unknown): CallToolResult {
  const text =
    error instanceof EngramError
      ? `${name}: ${error.message}`
      : `${name} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}. Do not repeat the same call; tell the user what failed.`
  return { content: [{ type: 'text', text: redactSecrets(text) }], isError: true }
}

/** Runs a handler and turns what it throws into {@link toolError}. */
export async function guarded<T extends object>(
  name: string,
  scope: Scope,
  run: () => Promise<ToolOutput<T>>,
): Promise<CallToolResult> {
  try {
    return toolResult(scope, await run())
  } catch (error) {
    return toolError(name, error)
  }
}

/**
 * Runs one of the agent's tools and returns its rendered text and its data; a refused or failed call throws
 * an EngramError with the tool's own message, which {@link guarded} turns into an `isError` result.
 */
export async function runAgentTool<Data>(
  tool: AgentTool<Data>,
  args: object,
  context: ToolContext,
): Promise<ToolOutput<Data>> {
  const result = await tool.call(args, context)
  if (result.ok) return { text: result.content, data: result.data }
  throw new EngramError('INVALID_ARGUMENT', result.error.message)
}
