import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ProviderError } from '../src/providers/errors.ts'
import { world } from './agent-helpers.ts'
import { localProvider, rejectionOf, type Vendor } from './providers-helpers.ts'
import { anthropicAnswer, messageEvents } from './servers/anthropic.ts'
import { type LocalServer, type Reply, stallAfter, startServer } from './servers/http.ts'
import { completionChunks, openaiAnswer } from './servers/openai.ts'

const ask = { system: 's', messages: [{ role: 'user' as const, content: 'hello' }] }
const TEXT = 'The first part of a long answer'
const ANSWER = { text: 'ok', usage: { prompt: 1, completion: 1 } }
const ANSWER_A = { text: 'ok', usage: { input: 1, output: 1 } }
// The limits under test: the server and the client share this process, and on a loaded machine (CI's is
// shared) a 0.3 s limit fired before the first chunk was even read. 1.5 s is over fifty times the quiet time
// to the first chunk, and keeps the four waits of this file short.
const IDLE = 1.5
const TOTAL = 3

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const dir = mkdtempSync(join(tmpdir(), 'engram-stall-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The events of a real answer, cut after the first text delta (the rest never comes). */
function streamCutAfterText(vendor: Vendor): Reply {
  if (vendor === 'openai') {
    const chunks = completionChunks({ text: TEXT, usage: { prompt: 3, completion: 5 } })
    return stallAfter(
      'text/event-stream',
      chunks.slice(0, 2).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
    )
  }
  const events = messageEvents({ text: TEXT, usage: { input: 3, output: 5 } })
  const firstDelta = events.findIndex((e) => e.event === 'content_block_delta')
  return stallAfter(
    'text/event-stream',
    events.slice(0, firstDelta + 1).map((e) => `event: ${e.event}\ndata: ${e.data}\n\n`),
  )
}

/** A JSON body that stops in the middle, as the issue saw: `{"choices": [` and then nothing. */
const jsonCut = (vendor: Vendor): Reply =>
  stallAfter('application/json', [vendor === 'openai' ? '{"choices": [' : '{"type":"message","content": ['])

/**
 * The failure of `call`, once the answer's headers arrived within the short limit. The scenarios below
 * start after the headers; the same limit also bounds the wait for them (the SDK's request timeout), and a
 * machine loaded far past ten times its quiet time (three full suites on two cores) once missed it: "no
 * answer from … within 1.5 s" is then the scenario not set up, not its result, and the call is made again
 * (a fresh reply each time, at most five tries; the last failure stands).
 */
async function failureAfterHeaders(call: () => Promise<unknown>): Promise<ProviderError> {
  let error = (await rejectionOf(call())) as ProviderError
  for (let tries = 1; tries < 5 && error.message.includes('no answer from'); tries++)
    error = (await rejectionOf(call())) as ProviderError
  return error
}

describe.each(['openai', 'anthropic'] as const)('%s: a stalled answer', (vendor) => {
  // Load the SDK and the transport once, so the short limits below time the answer, not module loading.
  beforeAll(async () => {
    const warm = await startServer([vendor === 'openai' ? openaiAnswer(ANSWER) : anthropicAnswer(ANSWER_A)])
    try {
      await localProvider(vendor, warm.origin).chat(ask)
    } finally {
      await warm.close()
    }
  })

  it('streaming: headers and one chunk, then nothing → TIMEOUT within the idle limit, text kept as partial', async () => {
    server = await startServer([], streamCutAfterText(vendor))
    let seen: string[] = []
    const provider = localProvider(vendor, server.origin, { timeoutSeconds: IDLE, maxRetries: 0 })
    const error = await failureAfterHeaders(() => {
      seen = []
      return provider.chat({ ...ask, onText: (delta) => seen.push(delta) })
    })
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain('stopped arriving')
    expect(error.message).toContain(`${IDLE} s`)
    expect(error.message).toContain('timeout_seconds')
    expect(seen.join('')).not.toBe('')
    expect(error.partial?.finishReason).toBe('interrupted')
    expect(error.partial?.message.content).toBe(seen.join(''))
  })

  it('non-streaming: a JSON body cut after its first bytes → TIMEOUT, not a hang', async () => {
    server = await startServer([], jsonCut(vendor))
    const provider = localProvider(vendor, server.origin, { timeoutSeconds: IDLE, maxRetries: 0 })
    const error = await failureAfterHeaders(() => provider.chat(ask))
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain(`${IDLE} s`)
    expect(error.partial).toBeUndefined()
  })

  it('an answer that trickles in forever stops at the total limit', async () => {
    // One byte of SSE comment every 50 ms: never idle for the idle limit, never complete.
    const trickle: Reply = async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 50)
      res.on('close', () => clearInterval(timer))
    }
    server = await startServer([], trickle)
    const provider = localProvider(vendor, server.origin, {
      timeoutSeconds: IDLE,
      answerTimeoutSeconds: TOTAL,
      maxRetries: 0,
    })
    const error = await failureAfterHeaders(() => provider.chat({ ...ask, onText: () => {} }))
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain(`not complete after ${TOTAL} s`)
  })

  it('a connection dropped in the middle of the answer is NETWORK, not BAD_REQUEST', async () => {
    const dropped: Reply = async (request, res) => {
      await streamCutAfterText(vendor)(request, res)
      setTimeout(() => res.destroy(), 20)
    }
    server = await startServer([dropped])
    const provider = localProvider(vendor, server.origin, { maxRetries: 0 })
    const error = (await rejectionOf(provider.chat({ ...ask, onText: () => {} }))) as ProviderError
    expect(error.code).toBe('NETWORK')
    expect(error.message).toContain('failed before the answer was complete')
    expect(error.partial?.finishReason).toBe('interrupted')
  })

  it('the agent keeps the streamed text, marked as interrupted, and rethrows the TIMEOUT', async () => {
    server = await startServer([streamCutAfterText(vendor)])
    const place = world(dir, `agent-${vendor}`)
    const store = await place.open()
    const agent = place.agent(
      store,
      localProvider(vendor, server.origin, { timeoutSeconds: IDLE, maxRetries: 0 }),
    )
    const seen: string[] = []
    const error = (await rejectionOf(
      agent.run('tell me', { onText: (delta) => seen.push(delta) }),
    )) as ProviderError
    expect(error.code).toBe('TIMEOUT')
    const stored = await store.getMessages(agent.sessionId as string)
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', 'tell me'],
      ['assistant', `${seen.join('')} [interrupted]`],
    ])
  })
})
