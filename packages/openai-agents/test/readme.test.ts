import { execFile } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { openStore } from '@engram/core'
import { afterEach, expect, it } from 'vitest'
import { startServer } from '../../agent/test/servers/http.ts'
import { openaiAnswer } from '../../agent/test/servers/openai.ts'
import { TSX_LOADER } from '../../core/test/processes/spawn.ts'
import { tempDatabase } from './agents-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('the README example runs as written against a local server', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
  expect(example.trim().split('\n').length).toBeLessThanOrEqual(15)
  // Inside the package, so `@engram/openai-agents` and its dependencies resolve as for a user.
  const file = fileURLToPath(new URL(`./readme-example-${process.pid}.ts`, import.meta.url))
  writeFileSync(file, example)
  cleanups.push(() => rmSync(file, { force: true }))
  const server = await startServer([
    openaiAnswer({ text: 'Noted: scripts/deploy.sh.', usage: { prompt: 20, completion: 5 } }),
  ])
  cleanups.push(() => server.close())
  const { dbPath, cleanup } = tempDatabase()
  cleanups.push(cleanup)
  const cwd = dbPath.replace(/engram\.db$/, '')
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=engram-source', '--import', TSX_LOADER, file],
    { cwd, env: { ...process.env, OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-local' } },
  )
  expect(stdout.trim()).toBe('Noted: scripts/deploy.sh. 2')
  const store = await openStore({ url: `${cwd}data/engram.db` })
  cleanups.push(() => store.close())
  expect((await store.getMessages('demo')).length).toBe(2)
})
