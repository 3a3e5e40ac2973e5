import { readFileSync } from 'node:fs'
import { MISSING_RESULT_STUB } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent, createOfflineModel, createOpenAIProvider, MemoryFiles } from '../src/index.ts'
import { OFFLINE_MODEL_ID } from '../src/providers/offline.ts'
import { toolPairingProblems, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'
import { OPENAI_KEY } from './providers-helpers.ts'
import { bodyOf, type LocalServer, type Reply, startServer } from './servers/http.ts'
import { completionChunks, openaiAnswer } from './servers/openai.ts'

const dir = tempDir()
let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const localOpenAI = (origin: string) =>
  createOpenAIProvider({
    apiKey: OPENAI_KEY,
    baseUrl: `${origin}/v1`,
    model: 'gpt-local',
    env: {},
    maxRetries: 0,
  })

const shape = (m: ChatMessage) => ({
  role: m.role,
  content: m.content,
  tool_calls: m.tool_calls?.map((c) => c.function.name),
})

describe('agent loop with the offline model', () => {
  it('persists every message as it happens, runs the memory tool and records usage per call', async () => {
    const w = world(dir)
    const store = await w.open()
    const agent = w.agent(store, createOfflineModel())
    const answer = await agent.run('Remember that the staging server runs on port 8443.')
    expect(answer).toContain('Saved to memory: the staging server runs on port 8443')

    const sessionId = agent.sessionId as string
    expect((await store.getMessages(sessionId)).map(shape)).toEqual([
      { role: 'user', content: 'Remember that the staging server runs on port 8443.', tool_calls: undefined },
      { role: 'assistant', content: null, tool_calls: ['memory'] },
      { role: 'tool', content: expect.stringContaining('MEMORY.md: added 1 entry'), tool_calls: undefined },
      { role: 'assistant', content: answer, tool_calls: undefined },
    ])
    expect(readFileSync(w.memory.memoryPath, 'utf8')).toContain('the staging server runs on port 8443')

    const usage = await store.usage({ sessionId })
    expect(usage.byPurpose.main?.calls).toBe(2)
    expect(usage.byPurpose.main?.inputTokens).toBeGreaterThan(100)
    expect(usage.byModel[OFFLINE_MODEL_ID]?.calls).toBe(2)
    expect(agent.tasksCompleted).toBe(1)
  })

  it('a fact about the user goes to USER.md; a new session sees it in its frozen snapshot and answers from it', async () => {
    const w = world(dir)
    const store = await w.open()
    await w.agent(store, createOfflineModel()).run('记住：我喜欢用 Vim 写代码')
    expect(readFileSync(w.memory.userPath, 'utf8')).toContain('我喜欢用 Vim 写代码')

    const next = w.agent(store, createOfflineModel())
    const answer = await next.run('我喜欢用什么编辑器写代码？')
    expect(answer).toContain('我喜欢用 Vim 写代码')
    expect(next.systemPrompt).toContain('我喜欢用 Vim 写代码')
  })

  it('builds the system prompt once (identity, tools, memory, date without time), stores it, and reuses the bytes on resume', async () => {
    const w = world(dir)
    const store = await w.open()
    await new MemoryFiles(w.memory).apply('memory', [
      { action: 'add', content: 'Deploys go through GitHub Actions.' },
    ])
    server = await startServer([], openaiAnswer({ text: 'ok', usage: { prompt: 50, completion: 2 } }))
    const now = () => new Date(2026, 11, 1, 14, 37, 5)
    const first = w.agent(store, localOpenAI(server.origin), { now })
    await first.run('hello')
    const prompt = first.systemPrompt as string
    expect(prompt).toContain('Engram')
    expect(prompt).toContain('session_search:')
    expect(prompt).toContain('Deploys go through GitHub Actions.')
    expect(prompt).toContain("Today's date is 2026-12-01.")
    expect(prompt).not.toMatch(/14:37|\b\d{1,2}:\d{2}\b/)
    expect((await store.getSession(first.sessionId as string))?.systemPrompt).toBe(prompt)

    // Memory changes and a day passes: the resumed session still sends the stored bytes.
    await new MemoryFiles(w.memory).apply('memory', [
      { action: 'add', content: 'The team moved to GitLab CI.' },
    ])
    const second = w.agent(store, localOpenAI(server.origin), { now: () => new Date(2026, 11, 2, 9, 0) })
    const resumed = await second.resume('latest')
    expect(resumed.id).toBe(first.sessionId)
    await second.run('and again')
    const systems = server.requests.map((r) => (r.body as { messages: ChatMessage[] }).messages[0]?.content)
    expect(systems).toHaveLength(2)
    expect(systems[1]).toBe(systems[0])
    expect(systems[0]).toBe(prompt)
    // A new session takes a fresh snapshot.
    await second.newSession()
    expect(second.systemPrompt).toContain('The team moved to GitLab CI.')
    expect((await store.getSession(resumed.id))?.endReason).toBe('new_session')
  })

  it('stops at the step limit with a persisted note when the model keeps calling tools', async () => {
    const w = world(dir)
    const store = await w.open()
    const search = {
      id: 'call_loop',
      type: 'function' as const,
      function: { name: 'session_search', arguments: '{"query":"x"}' },
    }
    server = await startServer(
      [],
      openaiAnswer({ toolCalls: [search], usage: { prompt: 10, completion: 5 } }),
    )
    const agent = w.agent(store, localOpenAI(server.origin), { maxSteps: 3 })
    const answer = await agent.run('loop forever')
    expect(answer).toContain('step limit')
    expect(server.requests).toHaveLength(3)
    const messages = await store.getMessages(agent.sessionId as string)
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: answer })
    expect(toolPairingProblems(messages)).toEqual([])
  })

  it('an unknown tool gets an error result naming the available tools, and the model carries on', async () => {
    const w = world(dir)
    const store = await w.open()
    const bogus = {
      id: 'call_bogus',
      type: 'function' as const,
      function: { name: 'shell', arguments: '{}' },
    }
    server = await startServer([
      openaiAnswer({ toolCalls: [bogus], usage: { prompt: 10, completion: 5 } }),
      openaiAnswer({ text: 'I cannot run shell commands.', usage: { prompt: 30, completion: 6 } }),
    ])
    const answer = await w.agent(store, localOpenAI(server.origin)).run('run ls')
    expect(answer).toBe('I cannot run shell commands.')
    const second = server.requests[1]?.body as { messages: ChatMessage[] }
    expect(second.messages.at(-1)?.content).toContain(
      'There is no tool named \\"shell\\". Available: memory, session_search',
    )
  })

  it('an abort mid-stream keeps the user message and the text already streamed, marked as interrupted', async () => {
    const w = world(dir)
    const store = await w.open()
    const chunks = completionChunks({
      text: 'The first part of a long answer that never ends',
      usage: { prompt: 9, completion: 9 },
    })
    const stalls: Reply = async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const chunk of chunks.slice(0, 4)) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
      // …and then nothing more: the client aborts.
    }
    server = await startServer([stalls])
    const agent = w.agent(store, localOpenAI(server.origin))
    const controller = new AbortController()
    const seen: string[] = []
    const run = agent.run('tell me everything', {
      signal: controller.signal,
      onText: (delta) => {
        seen.push(delta)
        if (seen.join('').length >= 14) controller.abort()
      },
    })
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' })
    const messages = await store.getMessages(agent.sessionId as string)
    expect(messages).toEqual([
      { role: 'user', content: 'tell me everything' },
      { role: 'assistant', content: `${seen.join('')} [interrupted]` },
    ])
    expect(seen.join('')).toMatch(/^The first part/)
    expect(await store.usage({ sessionId: agent.sessionId as string })).toMatchObject({ total: { calls: 0 } })
  })

  it('resume repairs a tool call left without a result, so the history sent is valid', async () => {
    const w = world(dir)
    const store = await w.open()
    const session = await store.createSession({ source: 'cli', systemPrompt: 'stored prompt' })
    await store.appendMessage(session.id, { role: 'user', content: 'save this' })
    await store.appendMessage(session.id, {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_lost',
          type: 'function',
          function: { name: 'memory', arguments: '{"target":"memory","action":"add","content":"x"}' },
        },
      ],
    })
    server = await startServer([
      openaiAnswer({ text: 'Picking up again.', usage: { prompt: 40, completion: 4 } }),
    ])
    const agent = w.agent(store, localOpenAI(server.origin))
    await agent.resume(session.id)
    await agent.run('are you there?')
    const sent = bodyOf<{ messages: ChatMessage[] }>(server, 0).messages
    expect(sent[0]).toEqual({ role: 'system', content: 'stored prompt' })
    expect(sent.slice(1)).toEqual([
      { role: 'user', content: 'save this' },
      expect.objectContaining({
        role: 'assistant',
        tool_calls: [expect.objectContaining({ id: 'call_lost' })],
      }),
      { role: 'tool', tool_call_id: 'call_lost', content: MISSING_RESULT_STUB },
      { role: 'user', content: 'are you there?' },
    ])
    expect(toolPairingProblems(sent.slice(1))).toEqual([])
  })

  it('without a config it runs on the defaults: a 128K window, a nudge every 15 tasks', async () => {
    const w = world(dir)
    const store = await w.open()
    const agent = createAgent({
      store,
      provider: createOfflineModel(),
      memory: new MemoryFiles(w.memory),
      source: 'cli',
    })
    for (let i = 0; i < 14; i++) await agent.run(`I prefer option ${i}.`)
    expect(agent.lastContext?.window).toBe(128_000)
    expect((await store.usage()).byPurpose.nudge).toBeUndefined()
    await agent.run('I prefer option 14.')
    expect((await store.usage()).byPurpose.nudge?.calls).toBe(2)
  })

  it('one run at a time; an abort before the model call reads like any other cancellation', async () => {
    const w = world(dir)
    const store = await w.open()
    const agent = w.agent(store, createOfflineModel())
    const first = agent.run('first')
    await expect(agent.run('second')).rejects.toThrow(/already answering/)
    await first
    await expect(agent.run('third', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'ABORTED',
    })
    expect((await store.getMessages(agent.sessionId as string)).map((m) => m.content)).toEqual([
      'first',
      expect.stringContaining('Noted'),
      'third',
    ])
  })

  it('resume("latest") with nothing to resume says what to do', async () => {
    const w = world(dir)
    const store = await w.open()
    await expect(
      w.agent(store, createOfflineModel(), { source: 'telegram' }).resume('latest'),
    ).rejects.toThrow(/No session of source "telegram" to resume/)
  })
})
