// Runs an agent with the offline model for a few user turns, one process per call, then exits:
//   agent-turns.ts <db path> <MEMORY.md> <USER.md> <json {resume?: string, turns: string[]}>
// Prints `SESSION <id>` and one `ANSWER <json>` line per turn.

import { createAgent, createOfflineModel, MemoryFiles } from '@engram/agent'
import { openStore } from '@engram/core'
import { agentConfig } from '../agent-helpers.ts'

const [dbPath, memoryPath, userPath, json] = process.argv.slice(2) as [string, string, string, string]
const plan = JSON.parse(json) as { resume?: string; turns: string[] }
const store = await openStore({ url: dbPath })
const memory = new MemoryFiles({
  memoryPath,
  userPath,
  memoryCharLimit: 2200,
  userCharLimit: 1375,
  compactTriggerRatio: 0.9,
})
const agent = createAgent({
  store,
  provider: createOfflineModel(),
  memory,
  config: agentConfig(),
  source: 'cli',
})
if (plan.resume) await agent.resume(plan.resume)
for (const turn of plan.turns) {
  const answer = await agent.run(turn)
  process.stdout.write(`SESSION ${agent.sessionId}\nANSWER ${JSON.stringify(answer)}\n`)
}
await store.close()
