// An Agents SDK run whose tool never returns, so the parent can SIGKILL it between a call and its result:
//   agents-crash-child.ts <db path> <session id> <OpenAI-compatible origin> <stream|run>
// Prints `TOOL_STARTED` once the tool is running.
import { openStore } from '@engram/core'
import { run } from '@openai/agents'
import { EngramSession } from '../../src/index.ts'
import { deployAgent } from '../agents-helpers.ts'

const [dbPath, sessionId, origin, mode] = process.argv.slice(2) as [string, string, string, string]
const store = await openStore({ url: dbPath })
const agent = deployAgent(origin, () => {
  process.stdout.write('TOOL_STARTED\n')
  return new Promise(() => {})
})
const session = new EngramSession({ store, sessionId })
if (mode === 'stream') {
  const result = await run(agent, 'Deploy production and wait.', { session, stream: true })
  for await (const _event of result) {
  }
} else await run(agent, 'Deploy production and wait.', { session })
