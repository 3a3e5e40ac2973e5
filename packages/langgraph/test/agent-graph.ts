import type { ContextCompressor } from '@engram/compressor'
import type { ChatMessage, Store } from '@engram/core'
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages'
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import OpenAI from 'openai'
import { compactMessages, EngramSaver } from '../src/index.ts'
import { toChatMessage } from '../src/messages.ts'

/** The tools of the test agent, in the Chat Completions shape the model is sent. */
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'save_note',
      description: 'Save a note for later',
      parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'lookup',
      description: 'Look a note up',
      parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
    },
  },
]

export interface AgentOptions {
  store: Store
  /** The OpenAI-compatible server's origin (http://127.0.0.1:port). */
  origin: string
  /** Called when a tool starts, before it returns (the crash test kills the process there). */
  onTool?: (name: string) => Promise<void> | void
  compressor?: ContextCompressor
}

/**
 * A tool-calling agent as LangGraph users write one: a StateGraph over MessagesAnnotation whose agent node
 * calls a chat model (the official OpenAI SDK against the local server), a tools node that runs the calls,
 * and an interrupt before the tools (a human approves them). Persisted by EngramSaver, conversation
 * mirrored into an Engram session.
 */
export function agentGraph(options: AgentOptions) {
  const client = new OpenAI({ baseURL: `${options.origin}/v1`, apiKey: 'sk-local', maxRetries: 0 })
  const graph = new StateGraph(MessagesAnnotation)
    // Engram's compressor before each model call (a pass-through without one)
    .addNode('compact', options.compressor ? compactMessages({ compressor: options.compressor }) : () => ({}))
    .addNode('agent', async (state) => {
      const messages = state.messages.map(toChatMessage).filter((m): m is ChatMessage => m !== null)
      const completion = await client.chat.completions.create({
        model: 'gpt-local',
        messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
        tools: TOOLS,
      })
      const reply = completion.choices[0]?.message
      return {
        messages: [
          new AIMessage({
            content: reply?.content ?? '',
            tool_calls: (reply?.tool_calls ?? []).flatMap((call) =>
              call.type === 'function'
                ? [
                    {
                      id: call.id,
                      name: call.function.name,
                      args: JSON.parse(call.function.arguments),
                      type: 'tool_call' as const,
                    },
                  ]
                : [],
            ),
          }),
        ],
      }
    })
    .addNode('tools', async (state) => {
      const last = state.messages.at(-1) as AIMessage
      const results: BaseMessage[] = []
      for (const call of last.tool_calls ?? []) {
        await options.onTool?.(call.name)
        const content =
          call.name === 'save_note' ? `saved: ${call.args.note}` : `found: deploy with scripts/deploy.sh`
        results.push(new ToolMessage({ content, tool_call_id: call.id ?? '' }))
      }
      return { messages: results }
    })
    .addEdge(START, 'compact')
    .addEdge('compact', 'agent')
    .addConditionalEdges('agent', (state) =>
      ((state.messages.at(-1) as AIMessage).tool_calls?.length ?? 0) > 0 ? 'tools' : END,
    )
    .addEdge('tools', 'agent')
  return graph.compile({
    checkpointer: new EngramSaver({ store: options.store, conversation: true }),
    interruptBefore: ['tools'],
  })
}
