import { fileURLToPath } from 'node:url'
import { openStore } from '@engram/core'
import { run } from '@openai/agents'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import {
  exitWithin,
  killIfRunning,
  spawnProcess,
  TSX_LOADER,
  waitForLine,
} from '../../core/test/processes/spawn.ts'
import { EngramSession } from '../src/index.ts'
import { deployAgent, deployCall, sentMessages, tempDatabase, toolPairingProblems } from './agents-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const usage = { prompt: 40, completion: 4 }

const script = fileURLToPath(new URL('./processes/agents-crash-child.ts', import.meta.url))
const agentsProcess = (...args: string[]) => {
  const child = spawnProcess(process.execPath, [
    '--conditions=engram-source',
    '--import',
    TSX_LOADER,
    script,
    ...args,
  ])
  cleanups.push(() => killIfRunning(child))
  return child
}

it('a run SIGKILLed while its tool runs leaves a history a new process continues from', async () => {
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  const server = await startServer([
    openaiAnswer({ text: 'Nothing deployed yet.', usage }),
    openaiAnswer({ toolCalls: [deployCall('call_9', 'production')], usage }),
    openaiAnswer({ text: 'The production deploy was interrupted; retry it?', usage }),
  ])
  cleanups.push(() => server.close())
  const store = await openStore({ url: dbPath })
  cleanups.push(() => store.close())
  const session = new EngramSession({ store })
  await run(deployAgent(server.origin), 'Status?', { session })
  const id = await session.getSessionId()

  const killed = agentsProcess(dbPath, id, server.origin, 'kill', 'Deploy production and wait.')
  await waitForLine(killed, (line) => line === 'TOOL_STARTED', 600_000)
  killed.proc.kill('SIGKILL')
  expect((await exitWithin(killed, 600_000)).signal).toBe('SIGKILL')
  // The SDK hands a turn's input and items to the session once the turn's tools have finished, so the
  // killed turn left nothing behind, and what is there is whole.
  expect((await session.getItems()).map((item) => item.type)).toEqual(['message', 'message'])

  // A new process on the same file continues the conversation.
  const next = agentsProcess(dbPath, id, server.origin, 'continue', 'What happened?')
  expect((await exitWithin(next, 600_000)).code, next.describe()).toBe(0)
  expect(next.stdout().trim()).toBe(JSON.stringify('The production deploy was interrupted; retry it?'))
  const sent = sentMessages(server.requests[2]?.body)
  expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
  expect(toolPairingProblems(sent.slice(1))).toEqual([])
  expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'What happened?' })
  expect((await session.getItems()).map((item) => item.type)).toEqual([
    'message',
    'message',
    'message',
    'message',
  ])
})

it('a stored call whose result never came (a writer killed between the two) is accepted by the SDK', async () => {
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  const server = await startServer([openaiAnswer({ text: 'The deploy did not report back.', usage })])
  cleanups.push(() => server.close())
  const store = await openStore({ url: dbPath })
  cleanups.push(() => store.close())
  const session = new EngramSession({ store })
  await session.addItems([
    { role: 'user', content: 'Deploy production.' },
    { type: 'function_call', callId: 'call_lost', name: 'deploy', arguments: '{"target":"production"}' },
  ])
  const result = await run(deployAgent(server.origin), 'Did it finish?', { session })
  expect(result.finalOutput).toBe('The deploy did not report back.')
  const sent = sentMessages(server.requests[0]?.body)
  expect(toolPairingProblems(sent.slice(1))).toEqual([])
  expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'Did it finish?' })
  // The stored history keeps the call as it was written.
  expect((await session.getItems()).map((item) => item.type)).toEqual([
    undefined,
    'function_call',
    'message',
    'message',
  ])
})
