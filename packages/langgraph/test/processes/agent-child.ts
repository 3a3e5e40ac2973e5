/**
 * One step of the agent test in a process of its own: `node agent-child.ts <db> <origin> <thread> <command>
 * [text]`. `say TEXT` runs a turn until it ends or stops before the tools; `resume` approves the pending
 * tools and runs on; with ENGRAM_HANG_IN_TOOL=1 a tool prints TOOL_STARTED and never returns (the test
 * SIGKILLs the process there). Prints the thread's state as one JSON line: STATE {...}.
 */
import { openStore } from '@engram/core'
import { HumanMessage } from '@langchain/core/messages'
import { agentGraph } from '../agent-graph.ts'

const [dbPath, origin, threadId, command, text] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string?,
]
const store = await openStore({ url: dbPath })
const graph = agentGraph({
  store,
  origin,
  onTool: async () => {
    if (process.env.ENGRAM_HANG_IN_TOOL !== '1') return
    console.log('TOOL_STARTED')
    await new Promise(() => setInterval(() => undefined, 60_000))
  },
})
const config = { configurable: { thread_id: threadId } }
await graph.invoke(command === 'say' ? { messages: [new HumanMessage(text ?? '')] } : null, config)
const state = await graph.getState(config)
console.log(
  `STATE ${JSON.stringify({ next: state.next, messages: state.values.messages.map((m: { getType(): string; content: unknown }) => [m.getType(), m.content]) })}`,
)
await store.close()
