/**
 * What a tool gets to know about the call it serves: the session the model is in (and its compression
 * lineage is excluded from searches), the user scope the agent runs under, and a signal that aborts it.
 */
export interface ToolContext {
  sessionId: string
  userId?: string
  signal?: AbortSignal
}

/**
 * A JSON Schema for a tool's arguments, in the subset that both OpenAI function tools (`parameters`) and
 * Anthropic tools (`input_schema`) accept as they are: an object at the top level. A type alias, not an
 * interface, so that it is assignable to the SDKs' index-signature types without a cast.
 */
export type ToolParameters = {
  type: 'object'
  properties: Record<string, unknown>
  required?: string[]
  additionalProperties?: boolean
}

/**
 * A tool the agent offers the model. `execute` returns the text the model sees as the tool result; it may
 * throw, and the agent loop turns the error into an `{"error": …}` result instead of crashing.
 */
export interface AgentTool {
  name: string
  description: string
  parameters: ToolParameters
  execute(args: Record<string, unknown>, context: ToolContext): Promise<string>
}
