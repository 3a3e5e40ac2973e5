import { createOpenAIProvider, createSummarizer } from '@engram/agent'
import { ContextCompressor } from '@engram/compressor'
import { openStore, type Store } from '@engram/core'
import { Agent, OpenAIResponsesModel, protocol, run, tool } from '@openai/agents'
import OpenAI from 'openai'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { type RecordedRequest, startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { type CompactionEvent, EngramSession } from '../src/index.ts'
import { tempDatabase } from './agents-helpers.ts'
import { type ResponsesAnswer, responsesAnswer, responsesInputProblems } from './responses-server.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const usage = { input: 80, output: 8 }
const SUMMARY = 'Deploys so far: the services were deployed one after another; all succeeded.'
/** What the deploy tool prints: long enough that a few turns fill the small window. */
const deployLog = (target: string) =>
  `deployed ${target}\n${Array.from({ length: 30 }, (_, i) => `step ${i}: ${target} ok`).join('\n')}`

/** Each turn: reasoning and a call, the tool's result, then reasoning and the answer. */
function turn(i: number): ResponsesAnswer[] {
  const target = `service-${i}`
  return [
    {
      reasoning: `The user wants ${target}; call deploy.`,
      call: { callId: `call_${i}`, name: 'deploy', arguments: JSON.stringify({ target }) },
      usage,
    },
    { reasoning: `${target} succeeded.`, text: `${target} is deployed.`, usage },
  ]
}

/**
 * One local server for both APIs: the Responses API for the agent (refusing, as the real one does, an
 * input with a lone reasoning item or a call apart from its output) and chat completions for the
 * summariser, told apart by its model name.
 */
async function serve(answers: ResponsesAnswer[]) {
  const queue = answers.map(responsesAnswer)
  const summaries: RecordedRequest[] = []
  const server = await startServer([], async (request, res) => {
    if ((request.body as { model?: string }).model === 'gpt-summary') {
      summaries.push(request)
      return openaiAnswer({ text: SUMMARY, usage: { prompt: 300, completion: 20 } })(request, res)
    }
    const next = queue.shift()
    if (!next) throw new Error('no responses answer queued')
    return next(request, res)
  })
  cleanups.push(() => server.close())
  return { server, summaries }
}

function deployAgent(origin: string) {
  const client = new OpenAI({ apiKey: 'sk-local-test-key', baseURL: `${origin}/v1`, maxRetries: 0 })
  return new Agent({
    name: 'deployer',
    instructions: 'You deploy services.',
    model: new OpenAIResponsesModel(client, 'gpt-local'),
    tools: [
      tool({
        name: 'deploy',
        description: 'Deploys a target.',
        parameters: z.object({ target: z.string() }),
        execute: async ({ target }) => deployLog(target),
      }),
    ],
  })
}

/** A history the Responses API and the SDK accept: known item kinds, reasoning and calls paired. */
function historyProblems(items: readonly Record<string, unknown>[]): string[] {
  const problems = items.flatMap((item, i) =>
    protocol.ModelItem.safeParse(item).success ? [] : [`item ${i} is not an SDK item`],
  )
  const wire = items.map((item) => ({
    ...item,
    type: item.type === 'function_call_result' ? 'function_call_output' : item.type,
    call_id: item.callId,
  }))
  return [...problems, ...responsesInputProblems(wire)]
}

async function drain(result: AsyncIterable<unknown> & { completed: Promise<void> }) {
  for await (const _event of result) {
  }
  await result.completed
}

it('an SDK Agent run through run() compacts into a child session with the compressor, and goes on from it', async () => {
  const turns = 6
  const { server, summaries } = await serve(Array.from({ length: turns + 1 }, (_, i) => turn(i)).flat())
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  let store: Store = await openStore({ url: dbPath })
  const summarizer = createSummarizer(
    createOpenAIProvider({
      apiKey: 'sk-local',
      baseUrl: `${server.origin}/v1`,
      model: 'gpt-summary',
      env: {},
      maxRetries: 0,
    }),
  )
  const compactions: CompactionEvent[] = []
  const sessionFor = (s: Store) =>
    new EngramSession({
      store: s,
      sessionId: 'deploys',
      compressor: new ContextCompressor({ window: 3000, summarizer, fixedTokens: 100 }),
      onCompaction: (event) => compactions.push(event),
    })
  const session = sessionFor(store)
  const agent = deployAgent(server.origin)
  for (let i = 0; i < turns; i++) {
    const input = `Deploy service-${i}.`
    if (i % 2 === 0)
      expect((await run(agent, input, { session })).finalOutput).toBe(`service-${i} is deployed.`)
    else await drain(await run(agent, input, { session, stream: true }))
  }

  // The runner called the hook after each turn; the compressor compacted once the window filled.
  expect(compactions.length).toBeGreaterThanOrEqual(1)
  expect(summaries.length).toBe(compactions.length)
  const [first] = compactions as [CompactionEvent]
  expect(first.sessionId).toBe('deploys')
  const tip = await session.currentSessionId()
  expect(tip).toBe(compactions.at(-1)?.childSessionId)
  expect(await session.getSessionId()).toBe('deploys')
  expect((await store.getSession('deploys'))?.endReason).toBe('compression')
  expect((await store.getSession(tip))?.parentSessionId).toBe(compactions.at(-1)?.sessionId)

  // The compacted history is one the SDK and the API accept, starting from the summary.
  const items = (await session.getItems()) as unknown as Record<string, unknown>[]
  expect(historyProblems(items)).toEqual([])
  expect(JSON.stringify(items)).toContain(SUMMARY)
  expect(JSON.stringify(items)).not.toContain('Deploy service-1.')
  expect(items.filter((item) => item.type === 'reasoning').length).toBeGreaterThan(0)
  // What was cut stays searchable in the parent, and the summary is its episode.
  const hits = await store.search('service-1', { sessionId: 'deploys' })
  expect(hits.length).toBeGreaterThan(0)
  expect((await store.getEpisodes('deploys')).map((e) => e.summary)).toContain(SUMMARY)
  await store.close()

  // A new store on the same file continues from the child, and the API accepts what it is sent.
  store = await openStore({ url: dbPath })
  cleanups.push(() => store.close())
  const resumed = sessionFor(store)
  expect(await resumed.getItems()).toEqual(items)
  const last = await run(agent, `Deploy service-${turns}.`, { session: resumed })
  expect(last.finalOutput).toBe(`service-${turns} is deployed.`)
  const sent = server.requests.at(-2)?.body as { input: Record<string, unknown>[] }
  expect(JSON.stringify(sent.input)).toContain(SUMMARY)
  expect(responsesInputProblems(sent.input)).toEqual([])
})
