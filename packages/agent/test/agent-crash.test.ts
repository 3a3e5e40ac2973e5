import { MISSING_RESULT_STUB } from '@engram/compressor'
import type { ChatMessage } from '@engram/core'
import { describe, expect, it } from 'vitest'
import { exitWithin, killIfRunning, waitForLine } from '../../core/test/processes/spawn.ts'
import { createOpenAIProvider } from '../src/index.ts'
import { spawnAgentScript, toolPairingProblems, world } from './agent-helpers.ts'
import { tempDir } from './memory-helpers.ts'
import { bodyOf, startServer } from './servers/http.ts'
import { openaiAnswer } from './servers/openai.ts'

const dir = tempDir()

describe('crash between a tool call and its result', () => {
  it('a SIGKILLed agent process resumes into a valid history: the lost result is repaired', async () => {
    const w = world(dir, 'crash')
    const call = {
      id: 'call_deploy',
      type: 'function' as const,
      function: { name: 'wait_for_deploy', arguments: '{}' },
    }
    const server = await startServer([
      openaiAnswer({ text: 'Deploying now.', toolCalls: [call], usage: { prompt: 200, completion: 12 } }),
      openaiAnswer({
        text: 'The wait was interrupted; let me check the deploy status.',
        usage: { prompt: 260, completion: 14 },
      }),
    ])
    try {
      const child = spawnAgentScript('agent-crash-child.ts', [
        w.dbPath,
        w.memory.memoryPath,
        w.memory.userPath,
        `${server.origin}/v1`,
      ])
      let sessionId: string
      try {
        const line = await waitForLine(child, (l) => l.startsWith('TOOL_STARTED '), 600_000)
        sessionId = line.slice('TOOL_STARTED '.length)
        child.proc.kill('SIGKILL')
        expect((await exitWithin(child, 600_000)).signal).toBe('SIGKILL')
      } finally {
        killIfRunning(child)
      }

      const store = await w.open()
      const persisted = await store.getMessages(sessionId)
      expect(persisted.map((m) => m.role)).toEqual(['user', 'assistant'])
      expect(persisted[1]?.tool_calls?.[0]?.id).toBe('call_deploy')
      // The call made before the crash was recorded with the tokens the server reported.
      expect((await store.usage({ sessionId })).byPurpose.main).toMatchObject({
        calls: 1,
        inputTokens: 200,
        outputTokens: 12,
      })

      const provider = createOpenAIProvider({
        apiKey: 'sk-local-test-key-0123456789',
        baseUrl: `${server.origin}/v1`,
        model: 'gpt-local',
        env: {},
      })
      const agent = w.agent(store, provider)
      expect((await agent.resume('latest')).id).toBe(sessionId)
      const answer = await agent.run('Did the deploy finish?')
      expect(answer).toContain('interrupted')

      const sent = bodyOf<{ messages: ChatMessage[] }>(server, 1).messages.slice(1)
      expect(toolPairingProblems(sent)).toEqual([])
      expect(sent).toEqual([
        { role: 'user', content: 'Deploy the release and wait for it.' },
        { role: 'assistant', content: 'Deploying now.', tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_deploy', content: MISSING_RESULT_STUB },
        { role: 'user', content: 'Did the deploy finish?' },
      ])
      expect((await store.getMessages(sessionId)).map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
      ])
    } finally {
      await server.close()
    }
  })
})
