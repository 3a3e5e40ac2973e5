import { ContextCompressor, MISSING_RESULT_STUB } from '@engram/compressor'
import { openStore } from '@engram/core'
import { Agent, OpenAIResponsesModel, run, tool } from '@openai/agents'
import OpenAI from 'openai'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { startServer } from '../../agent/test/servers/http.ts'
import { type CompactionEvent, EngramSession } from '../src/index.ts'
import { tempDatabase } from './agents-helpers.ts'
import { type ResponsesAnswer, responsesAnswer } from './responses-server.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const usage = { input: 80, output: 8 }
/** Long enough that a few turns fill the small window, so the runner's compaction is due after each. */
const deployLog = (target: string) =>
  `deployed ${target}\n${Array.from({ length: 30 }, (_, i) => `step ${i}: ${target} ok`).join('\n')}`

const turn = (i: number): ResponsesAnswer[] => [
  {
    call: { callId: `call_${i}`, name: 'deploy', arguments: JSON.stringify({ target: `service-${i}` }) },
    usage,
  },
  { text: `service-${i} is deployed.`, usage },
]

function agentAt(origin: string) {
  const client = new OpenAI({ apiKey: 'sk-local-test-key', baseURL: `${origin}/v1`, maxRetries: 0 })
  const deploy = (name: string, needsApproval: boolean) =>
    tool({
      name,
      description: 'Deploys a target.',
      parameters: z.object({ target: z.string() }),
      needsApproval,
      execute: async ({ target }) => deployLog(target),
    })
  return new Agent({
    name: 'deployer',
    instructions: 'You deploy services.',
    model: new OpenAIResponsesModel(client, 'gpt-local'),
    tools: [deploy('deploy', false), deploy('deploy_prod', true)],
  })
}

it('a run interrupted for an approval is not compacted by the runner; the approved result is kept whole, then compaction goes on', async () => {
  const answers = [
    ...[0, 1, 2].flatMap(turn),
    { call: { callId: 'call_prod', name: 'deploy_prod', arguments: '{"target":"prod"}' }, usage },
    { text: 'prod is deployed.', usage },
  ]
  const queue = answers.map(responsesAnswer)
  const server = await startServer([], async (request, res) => {
    const next = queue.shift()
    if (!next) throw new Error('no responses answer queued')
    return next(request, res)
  })
  cleanups.push(() => server.close())
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  const store = await openStore({ url: dbPath })
  cleanups.push(() => store.close())
  const agent = agentAt(server.origin)

  // Three turns without a compressor: a history the 1,200-token window finds due at once.
  const plain = new EngramSession({ store, sessionId: 'approvals' })
  for (const i of [0, 1, 2]) await run(agent, `Deploy service-${i}.`, { session: plain })

  const compactions: CompactionEvent[] = []
  const session = new EngramSession({
    store,
    sessionId: 'approvals',
    compressor: new ContextCompressor({
      window: 1_200,
      summarizer: { summarize: async () => 'The earlier turns deployed services 0 to 2.' },
    }),
    onCompaction: (event) => compactions.push(event),
  })
  // Streamed: the runner persists the pending call, then asks the session to compact.
  const interrupted = await run(agent, 'Deploy prod.', { session, stream: true })
  for await (const _event of interrupted) {
  }
  await interrupted.completed
  expect(interrupted.interruptions).toHaveLength(1)
  // The compaction the runner asked for is skipped (without the guard the call gets a stub result here).
  expect(compactions).toEqual([])
  expect(await session.currentSessionId()).toBe('approvals')
  const pending = (await session.getItems()).at(-1) as { type?: string; callId?: string }
  expect(pending).toMatchObject({ type: 'function_call', callId: 'call_prod' })

  interrupted.state.approve(interrupted.interruptions[0] as Parameters<typeof interrupted.state.approve>[0])
  const done = await run(agent, interrupted.state, { session })
  expect(done.finalOutput).toBe('prod is deployed.')
  // Once the result is there the runner's compaction runs, and the call keeps its real output, no stub.
  expect(compactions.length).toBeGreaterThanOrEqual(1)
  const items = JSON.stringify(await session.getItems())
  expect(items).toContain('step 29: prod ok')
  expect(items).not.toContain(MISSING_RESULT_STUB)
})
