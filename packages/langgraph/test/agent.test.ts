import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openStore } from '@engram/core'
import { HumanMessage } from '@langchain/core/messages'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import {
  type Child,
  exitWithin,
  killIfRunning,
  spawnProcess,
  TSX_LOADER,
  waitForLine,
} from '../../core/test/processes/spawn.ts'
import { EngramSaver } from '../src/index.ts'
import { agentGraph } from './agent-graph.ts'
import { model } from './model-server.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const script = fileURLToPath(new URL('./processes/agent-child.ts', import.meta.url))
function step(args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawnProcess(
    process.execPath,
    ['--conditions=engram-source', '--import', TSX_LOADER, script, ...args],
    env,
  )
  cleanups.push(() => killIfRunning(child))
  return child
}

/** Runs a step to its end and returns the state it printed. */
async function stepState(args: string[]): Promise<{ next: string[]; messages: [string, unknown][] }> {
  const child = step(args)
  const exit = await exitWithin(child, 600_000)
  expect(exit, child.describe()).toEqual({ code: 0, signal: null })
  const line = child
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('STATE '))
  return JSON.parse((line as string).slice('STATE '.length))
}

it('a tool-calling StateGraph agent on EngramSaver: turns in new processes, interrupt and resume, SIGKILL mid-tool, a fork, and the thread searchable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-langgraph-agent-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const db = join(dir, 'engram.db')
  const server = await startServer([], model)
  cleanups.push(() => server.close())
  const thread = 'agent-thread'
  const args = (command: string, text?: string) => [
    db,
    server.origin,
    thread,
    command,
    ...(text === undefined ? [] : [text]),
  ]

  // turn 1 stops before its tool (the interrupt); a new process approves it and the turn finishes
  const stopped = await stepState(args('say', 'Please remember how we deploy.'))
  expect(stopped.next).toEqual(['tools'])
  expect(stopped.messages.map(([type]) => type)).toEqual(['human', 'ai'])
  const resumed = await stepState(args('resume'))
  expect(resumed.next).toEqual([])
  expect(resumed.messages.at(-1)).toEqual(['ai', 'Done (saved: deploy with scripts/deploy.sh on Fridays).'])

  // turn 2 in another process sees the whole conversation
  const second = await stepState(args('say', '我们什么时候部署?'))
  expect(second.messages.at(-1)).toEqual(['ai', 'You said 2 things. 周五部署.'])

  // turn 3: SIGKILL while the approved tool runs; the steps acknowledged before it are all there
  expect((await stepState(args('say', 'Look up the deploy script.'))).next).toEqual(['tools'])
  const store = await openStore({ url: db })
  cleanups.push(() => store.close())
  const saver = new EngramSaver({ store })
  const listed = async () => {
    const ids: string[] = []
    for await (const tuple of saver.list({ configurable: { thread_id: thread } }))
      ids.push(tuple.checkpoint.id)
    return ids
  }
  const before = await listed()
  const killed = step(args('resume'), { ENGRAM_HANG_IN_TOOL: '1' })
  await waitForLine(killed, (line) => line === 'TOOL_STARTED', 600_000)
  killed.proc.kill('SIGKILL')
  expect((await exitWithin(killed, 600_000)).signal).toBe('SIGKILL')
  const after = await listed()
  expect(after.filter((id) => before.includes(id))).toEqual(before)
  const pending = await saver.getTuple({ configurable: { thread_id: thread } })
  expect(pending?.checkpoint.id).toBe(after[0])
  const finished = await stepState(args('resume'))
  expect(finished.next).toEqual([])
  expect(finished.messages.map(([type]) => type)).toEqual([
    'human',
    'ai',
    'tool',
    'ai',
    'human',
    'ai',
    'human',
    'ai',
    'tool',
    'ai',
  ])
  expect(finished.messages.at(-1)).toEqual(['ai', 'Done (found: deploy with scripts/deploy.sh).'])

  // fork from the end of turn 2 (an older checkpoint): a different turn 3, the original branch intact
  const graph = agentGraph({ store, origin: server.origin })
  const history = []
  for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: thread } }))
    history.push(snapshot)
  const endOfTurn2 = history.find((s) => s.next.length === 0 && s.values.messages.length === 6)
  expect(endOfTurn2).toBeDefined()
  const forked = await graph.invoke(
    { messages: [new HumanMessage('What did I ask first?')] },
    endOfTurn2?.config ?? {},
  )
  expect(forked.messages.map((m) => m.getType())).toEqual([
    'human',
    'ai',
    'tool',
    'ai',
    'human',
    'ai',
    'human',
    'ai',
  ])
  expect(forked.messages.at(-1)?.content).toBe('You said 3 things. 周五部署.')
  const original = history[0]
  expect((await graph.getState(original?.config ?? {})).values.messages).toHaveLength(10)

  // the thread is an Engram session: every message once (12 = 10 + the fork's 2), searchable, CJK too
  const messages = await store.getStoredMessages(`langgraph-${thread}`)
  expect(messages).toHaveLength(12)
  expect(messages.map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'assistant',
    'user',
    'assistant',
    'user',
    'assistant',
    'tool',
    'assistant',
    'user',
    'assistant',
  ])
  expect(
    (await store.search('scripts/deploy.sh')).some((hit) => hit.sessionId === `langgraph-${thread}`),
  ).toBe(true)
  expect((await store.search('部署')).map((hit) => hit.sessionId)).toContain(`langgraph-${thread}`)
  expect((await store.getSession(`langgraph-${thread}`))?.source).toBe('langgraph')
  // the model was called once per agent step: 2 + 1 + 2 (the killed process never reached it) + 1
  expect(server.requests).toHaveLength(6)
})
