import type { z } from 'zod'
import type { ToolSpec } from '../providers/types.ts'

/**
 * What a tool gets to know about the call it serves: the session the model is in (and its compression
 * lineage is excluded from searches), the user scope the agent runs under, and a signal that aborts it.
 */
export interface ToolContext {
  /** The session the model is in; absent for callers outside any stored session (an MCP client). */
  sessionId?: string
  userId?: string
  signal?: AbortSignal
}

/**
 * Why a tool call produced no result: `invalid_arguments` (not JSON, or not matching the schema),
 * `unknown_tool` (no tool of that name is offered), `unavailable` (the tool exists but not in this run),
 * `refused` (the tool declined with an {@link EngramError}: over a cap, ambiguous, not found, …), `failed`
 * (anything else it threw).
 */
export type ToolErrorCode = 'invalid_arguments' | 'unknown_tool' | 'unavailable' | 'refused' | 'failed'

/**
 * The outcome of one tool call. `data` is what the tool found or did, for programs (MCP's
 * `structuredContent`, the offline model); `content` is its rendering, the text the model reads. An
 * error's `message` says what to do differently, with secrets redacted. {@link toolResultText} is the
 * text the model is sent either way.
 */
export type ToolResult<Data = unknown> =
  | { ok: true; content: string; data: Data }
  | { ok: false; error: { code: ToolErrorCode; message: string } }

/** What the model is shown of a tool: its name, description and parameters, without the code behind it. */
export const specOf = ({ name, description, parameters }: ToolSpec): ToolSpec => ({
  name,
  description,
  parameters,
})

/**
 * A tool the agent offers the model. `call` checks the raw arguments (JSON text, an object, or nothing)
 * and runs the tool; it should not throw (`runTool` turns a throw into a `failed` result anyway). Build
 * one with {@link defineTool}.
 */
export interface AgentTool<Data = unknown> extends ToolSpec {
  call(rawArgs: unknown, context: ToolContext): Promise<ToolResult<Data>>
  /**
   * True for a tool that reads or keeps the agent's memory (`session_search`, `memory`): its calls and
   * results are stored as retrieval traffic (MessageInput.retrieval), left out of search by default, so
   * the agent's own searching never outranks what was said.
   */
  retrieval?: boolean
}

/**
 * A tool's definition: the arguments as a zod object schema (the single source of both the JSON Schema the
 * model is shown and the check of what it sends), `execute`, which gets the parsed arguments and returns
 * the result as data, and `render`, which turns that data into the text the model sees. `execute` may
 * throw; an {@link EngramError} becomes a `refused` result with its message, anything else a `failed` one.
 */
export interface ToolDefinition<Input extends z.ZodObject, Data> {
  name: string
  description: string
  input: Input
  execute(args: z.output<Input>, context: ToolContext): Promise<Data>
  /** The text the model reads for a result; a pure function of the data. */
  render(data: Data): string
  /** See AgentTool.retrieval. */
  retrieval?: boolean
}
