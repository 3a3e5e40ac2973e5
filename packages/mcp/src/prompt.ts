import { createSessionSearchTool } from '@engram/agent'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { BUDGETS } from './budget.ts'
import type { ToolDeps } from './deps.ts'
import { describeScope, scopeKey } from './scope.ts'
import { runAgentTool } from './tool-result.ts'

/**
 * `start_session`: the frozen memory block (both files with their usage headers, hostile entries blocked)
 * and the most relevant recent context: the search for `topic` when given, else the recent sessions, within
 * {@link BUDGETS.promptContext} tokens. No model is called.
 */
export function registerStartPrompt(server: McpServer, deps: ToolDeps): void {
  const { store, memory, scope, budget } = deps
  const context = createSessionSearchTool(store, {
    maxTokens: BUDGETS.promptContext,
    tokenCounter: budget.counter,
  })
  server.registerPrompt(
    'start_session',
    {
      title: 'Start a session with Engram memory',
      description:
        'Your long-term memory (MEMORY.md and USER.md) and the most relevant past context: the search for topic, or the recent sessions.',
      argsSchema: { topic: z.string().max(1_000).optional().describe('What this session is about') },
    },
    async ({ topic }) => {
      const snapshot = await memory.snapshot()
      const query = topic?.trim()
      const { text: recent } = await runAgentTool(context, query ? { query, limit: 5 } : {}, {
        userId: scopeKey(scope),
      })
      const text = [
        `Long-term memory of ${describeScope(scope)} (as of the start of this session; write with the memory tool):`,
        snapshot.text,
        query ? `Past sessions about ${JSON.stringify(query)}:` : 'Recent sessions:',
        budget.clip(recent, BUDGETS.promptContext),
      ].join('\n\n')
      return {
        description: `Engram memory and context for ${describeScope(scope)}`,
        messages: [{ role: 'user', content: { type: 'text', text } }],
      }
    },
  )
}
