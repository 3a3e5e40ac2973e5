import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChatMessage, ToolCall } from '@engram/core'
import { Agent, OpenAIChatCompletionsModel, setTracingDisabled, tool } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'

export { toolPairingProblems } from '../../agent/test/agent-helpers.ts'

// The SDK would otherwise export traces to the hosted tracing endpoint.
setTracingDisabled(true)

/** A temp folder holding one database; `cleanup` removes it. */
export function tempDatabase(): { dbPath: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'engram-agents-'))
  return { dbPath: join(dir, 'engram.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export const deployCall = (id: string, target: string): ToolCall => ({
  id,
  type: 'function',
  function: { name: 'deploy', arguments: JSON.stringify({ target }) },
})

/**
 * An SDK Agent on the chat-completions model of a real OpenAI client pointed at a local server, with
 * one function tool; `execute` defaults to answering `deployed <target>`.
 */
export function deployAgent(
  origin: string,
  execute: (target: string) => Promise<string> = async (target) => `deployed ${target}`,
) {
  const client = new OpenAI({ apiKey: 'sk-local-test-key', baseURL: `${origin}/v1`, maxRetries: 0 })
  return new Agent({
    name: 'deployer',
    instructions: 'You deploy services.',
    model: new OpenAIChatCompletionsModel(client, 'gpt-local'),
    tools: [
      tool({
        name: 'deploy',
        description: 'Deploys a target.',
        parameters: z.object({ target: z.string() }),
        execute: ({ target }) => execute(target),
      }),
    ],
  })
}

/** The chat messages of a request the server received. */
export const sentMessages = (body: unknown): ChatMessage[] => (body as { messages: ChatMessage[] }).messages
