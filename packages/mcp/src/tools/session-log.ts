import { createHash } from 'node:crypto'
import { EngramError, type RefMessageInput } from '@engram/core'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { McpStore, ToolDeps } from '../deps.ts'
import { describeScope, type Scope, scopeKey } from '../scope.ts'
import { guarded } from '../tool-result.ts'
import { clientId, scopeShape } from './shared.ts'

const MAX_MESSAGES = 50
/**
 * What one call may carry: the characters of its strings (contents, ids, titles, tool names and arguments)
 * together; a long tool output fits, and session_read and search clip it on the way out. A client may write
 * each character as six bytes of JSON (`\u0001`, or any non-ASCII one when it escapes them all), so a call
 * at the bound is a line of about 9 MB: below the 10 MiB line that MCP's stdio transport reads.
 */
export const MAX_CALL_CHARS = 1_500_000
const formatted = MAX_CALL_CHARS.toLocaleString('en-US')

const logged = z.strictObject({
  id: clientId(200).describe(
    "The client's own id for the message: a retry with the same id stores nothing twice",
  ),
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  content: z.string().max(MAX_CALL_CHARS),
  tool_calls: z
    .array(z.strictObject({ id: clientId(200), name: z.string().min(1), arguments: z.string() }))
    .max(50)
    .optional()
    .describe('For assistant messages: the tools it called'),
  tool_call_id: clientId(200).optional().describe('For tool messages: the call it answers'),
})

/** The characters of every string a session_log call carries. */
function callChars(call: {
  conversation_id: string
  title?: string | undefined
  messages: z.output<typeof logged>[]
}): number {
  let chars = call.conversation_id.length + (call.title?.length ?? 0)
  for (const message of call.messages) {
    chars += message.id.length + message.content.length + (message.tool_call_id?.length ?? 0)
    for (const tool of message.tool_calls ?? [])
      chars += tool.id.length + tool.name.length + tool.arguments.length
  }
  return chars
}

/** The session a client's conversation is logged in: the same id for the same scope and conversation, in every process. */
export function loggedSessionId(scope: Scope, conversationId: string): string {
  const hash = createHash('sha256')
    .update(`${scopeKey(scope)}\n${conversationId}`)
    .digest('hex')
  return `mcp-${hash.slice(0, 32)}`
}

async function openLoggedSession(
  store: McpStore,
  scope: Scope,
  conversationId: string,
  title: string | undefined,
  source: string,
): Promise<string> {
  const id = loggedSessionId(scope, conversationId)
  const key = scopeKey(scope)
  const found = await store.getSession(id)
  if (!found) {
    await store.createSession({ id, source, userId: key, title: title ?? null }).catch((error: unknown) => {
      // Another process created it between the read and the write: the same session, nothing lost.
      if (!(error instanceof EngramError && error.code === 'SESSION_EXISTS')) throw error
    })
  } else if (found.userId !== key) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Conversation ${JSON.stringify(conversationId)} cannot be logged in the scope of this server (${describeScope(scope)}).`,
    )
  }
  return id
}

function toInput(message: z.output<typeof logged>): RefMessageInput {
  const base = { ref: message.id, content: message.content }
  if (message.role === 'assistant' && message.tool_calls?.length) {
    return {
      ...base,
      role: 'assistant',
      tool_calls: message.tool_calls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    }
  }
  if (message.role === 'tool') return { ...base, role: 'tool', tool_call_id: message.tool_call_id ?? '' }
  return { ...base, role: message.role }
}

/**
 * `session_log`: a client records its own conversation turns, which become searchable like any session.
 * Each conversation is one session (its id derived from the scope and the conversation id) and each
 * message is stored once per client message id, so retries and several processes never duplicate it.
 */
export function registerSessionLog(server: McpServer, deps: ToolDeps, source: string): void {
  const { store, scope } = deps
  server.registerTool(
    'session_log',
    {
      title: 'Log conversation turns',
      description: `Records messages of this conversation in Engram so later sessions can search them. Send each message once with its own id (retries are safe), up to ${MAX_MESSAGES} messages and ${formatted} characters per call.`,
      inputSchema: z
        .strictObject({
          conversation_id: clientId(200).describe("The client's id for this conversation"),
          title: z.string().max(200).optional().describe('A title for the conversation (first call only)'),
          messages: z.array(logged).min(1).max(MAX_MESSAGES),
        })
        .superRefine((call, context) => {
          const chars = callChars(call)
          if (chars > MAX_CALL_CHARS)
            context.addIssue({
              code: 'custom',
              path: ['messages'],
              message: `one session_log call carries at most ${formatted} characters (contents, ids and tool call arguments together; this one has ${chars.toLocaleString('en-US')}), so that it fits in one line of MCP's stdio transport. Send the messages over several calls, or shorten the longest content.`,
            })
        }),
      outputSchema: z.object({
        ...scopeShape,
        sessionId: z.string(),
        stored: z.number(),
        alreadyStored: z.array(z.string()),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ conversation_id, title, messages }) =>
      guarded('session_log', scope, async () => {
        const sessionId = await openLoggedSession(store, scope, conversation_id, title, source)
        const { stored, existing } = await store.appendMessagesOnce(sessionId, messages.map(toInput))
        const again = existing.length ? ` (${existing.length} already stored)` : ''
        return {
          text: `Logged ${stored.length} message${stored.length === 1 ? '' : 's'}${again} in session ${sessionId}.`,
          data: { sessionId, stored: stored.length, alreadyStored: existing },
        }
      }),
  )
}
