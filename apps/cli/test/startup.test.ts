import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { dataFolder, engramBin, tempDir, withStore } from './helpers.ts'

// Every case starts the built binary; the machine may be busy.

const TRACE = fileURLToPath(new URL('./fixtures/trace-packages.mjs', import.meta.url))
// The vendor SDKs and the tokenizer load with a model; the MCP SDK (with ajv and zod-to-json-schema) with
// `engram mcp` serving; hono with `engram ui`.
const HEAVY = [
  'openai',
  '@anthropic-ai/sdk',
  'gpt-tokenizer',
  'undici',
  '@modelcontextprotocol/sdk',
  'ajv',
  'hono',
]

/** Runs `engram args` and returns the packages it loaded modules from, with its exit code. */
async function loadedBy(args: string[], env: Record<string, string> = {}, input = '') {
  const cwd = tempDir()
  // A database to read (the read-only commands create none).
  await withStore(join(dataFolder(cwd), 'engram.db'), async () => undefined)
  const file = join(cwd, 'packages.txt')
  const result = await engramBin(args, {
    cwd,
    input,
    env: { ...env, ENGRAM_TRACE_FILE: file },
    nodeArgs: ['--import', TRACE],
  })
  const packages = new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))
  return { ...result, packages }
}

describe('engram start-up', () => {
  it('loads neither vendor SDK nor the tokenizer for commands that need no model, nor the MCP SDK or the web server for the others', async () => {
    for (const args of [
      ['--help'],
      ['sessions', '--json'],
      ['search', 'deploy', '--json'],
      ['doctor'],
      ['mcp', 'install', 'cursor'],
    ]) {
      const { code, packages } = await loadedBy(args)
      expect([args, code]).toEqual([args, 0])
      expect(packages.has('commander')).toBe(true)
      // The built CLI runs without tsx.
      expect(packages.has('tsx')).toBe(false)
      expect([args, HEAVY.filter((name) => packages.has(name))]).toEqual([args, []])
    }
  })

  it('loads the SDK of the configured provider on the first chat, and only that one', async () => {
    const { stdout, packages } = await loadedBy(
      ['chat'],
      { OPENAI_API_KEY: 'sk-test-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      'hello\n',
    )
    expect(stdout).toMatch(/^openai: could not connect to http:\/\/127\.0\.0\.1:9\/v1/m)
    expect(packages.has('openai')).toBe(true)
    expect(packages.has('undici')).toBe(true)
    expect(packages.has('@anthropic-ai/sdk')).toBe(false)
  })
})
