// An Agents SDK process on an EngramSession:
//   agents-crash-child.ts <db path> <session id> <OpenAI-compatible origin> <kill|continue> <input>
// `kill`: a streamed run whose tool never returns, so the parent can SIGKILL it between a call and its
// result; prints `TOOL_STARTED` once the tool is running. `continue`: a run that prints its final output.
import { openStore } from '@engram/core'
import { run } from '@openai/agents'
import { EngramSession } from '../../src/index.ts'
import { deployAgent } from '../agents-helpers.ts'

const [dbPath, sessionId, origin, mode, input] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
]
const store = await openStore({ url: dbPath })
const session = new EngramSession({ store, sessionId })
if (mode === 'kill') {
  const agent = deployAgent(origin, () => {
    process.stdout.write('TOOL_STARTED\n')
    return new Promise(() => {})
  })
  const result = await run(agent, input, { session, stream: true })
  for await (const _event of result) {
  }
} else {
  const result = await run(deployAgent(origin), input, { session })
  process.stdout.write(`${JSON.stringify(result.finalOutput)}\n`)
  await store.close()
}
