import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '@engram/core'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { runReadmeExample } from '../../openai-agents/test/readme-example.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('the README example runs as written against a local server', async () => {
  const server = await startServer([openaiAnswer({ text: 'Noted.', usage: { prompt: 20, completion: 2 } })])
  cleanups.push(() => server.close())
  const cwd = mkdtempSync(join(tmpdir(), 'engram-langgraph-readme-'))
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }))
  const { lines, stdout } = await runReadmeExample(new URL('../', import.meta.url), cwd, {
    OPENAI_BASE_URL: `${server.origin}/v1`,
    OPENAI_API_KEY: 'sk-local',
  })
  expect(lines).toBeLessThanOrEqual(20)
  expect(stdout.trim()).toBe('Noted. 1')
  expect(server.requests).toHaveLength(1)
  const store = await openStore({ url: join(cwd, 'data/engram.db') })
  cleanups.push(() => store.close())
  expect((await store.getMessages('langgraph-demo')).map((m) => m.role)).toEqual(['user', 'assistant'])
})
