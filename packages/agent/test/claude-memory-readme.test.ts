import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { runReadmeExample } from '../../openai-agents/test/readme-example.ts'
import { tempDir } from './memory-helpers.ts'
import { anthropicAnswer } from './servers/anthropic.ts'
import { type LocalServer, startServer } from './servers/http.ts'

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
})

it("the README's Claude memory example runs as written against a local Messages server", async () => {
  const usage = { input: 30, output: 5 }
  server = await startServer([
    anthropicAnswer({
      toolUses: [{ id: 'toolu_1', name: 'memory', input: { command: 'view', path: '/memories' } }],
      usage,
    }),
    anthropicAnswer({
      toolUses: [
        {
          id: 'toolu_2',
          name: 'memory',
          input: { command: 'create', path: '/memories/USER.md', file_text: 'Drinks oolong in the mornings' },
        },
      ],
      usage,
    }),
    anthropicAnswer({ text: 'Noted.', usage }),
  ])
  const cwd = tempDir('engram-claude-readme-')
  const { lines, stdout } = await runReadmeExample(
    new URL('../', import.meta.url),
    cwd,
    { ANTHROPIC_API_KEY: 'sk-ant-local', ANTHROPIC_BASE_URL: server.origin },
    "## Claude's memory tool: `@engram/agent/claude-memory`",
  )
  expect(lines).toBeLessThanOrEqual(15)
  expect(stdout).toContain("text: 'Noted.'")
  expect(server.pending()).toBe(0)
  expect(readFileSync(join(cwd, 'data', 'USER.md'), 'utf8')).toBe('Drinks oolong in the mornings\n')
})
