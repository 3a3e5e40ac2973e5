// An agent whose tool never returns, so the parent can SIGKILL it between a tool call and its result:
//   agent-crash-child.ts <db path> <MEMORY.md> <USER.md> <OpenAI-compatible base URL>
// Prints `TOOL_STARTED <session id>` once the model's tool call is persisted and the tool is running.

import { createAgent, createOpenAIProvider, defineTool, MemoryFiles } from '@engram/agent'
import { openStore } from '@engram/core'
import { z } from 'zod'
import { agentConfig } from '../agent-helpers.ts'

const [dbPath, memoryPath, userPath, baseUrl] = process.argv.slice(2) as [string, string, string, string]
const store = await openStore({ url: dbPath })
const agent = createAgent({
  store,
  provider: createOpenAIProvider({
    apiKey: 'sk-local-test-key-0123456789',
    baseUrl,
    model: 'gpt-local',
    env: {},
  }),
  memory: new MemoryFiles({
    memoryPath,
    userPath,
    memoryCharLimit: 2200,
    userCharLimit: 1375,
    compactTriggerRatio: 0.9,
  }),
  config: agentConfig(),
  source: 'cli',
  tools: [
    defineTool({
      name: 'wait_for_deploy',
      description: 'Waits until the deploy finishes.',
      input: z.object({}),
      execute: (_args, context) => {
        process.stdout.write(`TOOL_STARTED ${context.sessionId}\n`)
        return new Promise(() => {})
      },
      render: String,
    }),
  ],
})
await agent.run('Deploy the release and wait for it.')
