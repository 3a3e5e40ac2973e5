import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { MemoryFiles } from '@engram/agent'
import { type ModelMessage, tool } from 'ai'
import { z } from 'zod'
import { memoryConfig } from '../../agent/test/memory-helpers.ts'

/** A temp folder with a database path and memory files in it; `cleanup` removes it. */
export function tempWorld() {
  const dir = mkdtempSync(join(tmpdir(), 'engram-ai-sdk-'))
  return {
    dir,
    dbPath: join(dir, 'engram.db'),
    memory: new MemoryFiles(memoryConfig(dir)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** The chat model of the real OpenAI-compatible provider, pointed at a local server. */
export const localModel = (origin: string) =>
  createOpenAICompatible({
    name: 'local',
    baseURL: `${origin}/v1`,
    apiKey: 'sk-local',
    includeUsage: true,
  }).chatModel('gpt-local')

export const deployTool = tool({
  description: 'Deploys a target.',
  inputSchema: z.object({ target: z.string() }),
  execute: async ({ target }) => `deployed ${target}`,
})

/**
 * The messages a generateText/streamText call added to the conversation, as an app appends them: ai 7's
 * `responseMessages` (its `response` is the last step's alone), ai 6's `response.messages` (every step's).
 */
export async function responseMessagesOf(result: object): Promise<ModelMessage[]> {
  if ('responseMessages' in result)
    return await (result as { responseMessages: PromiseLike<ModelMessage[]> }).responseMessages
  return (await (result as { response: PromiseLike<{ messages: ModelMessage[] }> }).response).messages
}
