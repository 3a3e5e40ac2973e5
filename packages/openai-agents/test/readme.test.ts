import { openStore } from '@engram/core'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { tempDatabase } from './agents-helpers.ts'
import { runReadmeExample } from './readme-example.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('the README example runs as written against a local server', async () => {
  const server = await startServer([
    openaiAnswer({ text: 'Noted: scripts/deploy.sh.', usage: { prompt: 20, completion: 5 } }),
  ])
  cleanups.push(() => server.close())
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  const cwd = dbPath.replace(/engram\.db$/, '')
  const { lines, stdout } = await runReadmeExample(new URL('../', import.meta.url), cwd, {
    OPENAI_BASE_URL: `${server.origin}/v1`,
    OPENAI_API_KEY: 'sk-local',
  })
  expect(lines).toBeLessThanOrEqual(15)
  expect(stdout.trim()).toBe('Noted: scripts/deploy.sh. 2')
  const store = await openStore({ url: `${cwd}data/engram.db` })
  cleanups.push(() => store.close())
  expect((await store.getMessages('demo')).length).toBe(2)
})
