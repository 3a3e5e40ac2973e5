import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { openStore, type Store } from '@engram/core'
import { afterAll } from 'vitest'
import { main } from '../src/main.ts'

/** Parsed `--json` output: its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read documented JSON by path and assert every value they use
export type Json = any

export const BIN = fileURLToPath(new URL('../bin/engram.js', import.meta.url))

/** A fresh folder under the OS temp dir, removed when the test file ends. */
export function tempDir(prefix = 'engram-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * The environment the CLI runs with in tests: no API keys, no colours forced, no database override, and
 * for the binary the built dist/ (vitest.build.ts builds it before the tests). The user's data folder (the default database and
 * memory files) is `<cwd>/engram` unless the test names a HOME or XDG_DATA_HOME: a test never reads or
 * writes the real one, and each test's folder holds its own.
 */
export function cleanEnv(extra: Record<string, string> = {}, cwd?: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG'])
    if (process.env[key]) env[key] = process.env[key] as string
  if (!extra.HOME && !extra.XDG_DATA_HOME) env.XDG_DATA_HOME = cwd ?? join(tmpdir(), 'engram-cli-tests')
  return { ...env, ...extra }
}

/** Where the CLI keeps its default database and memory files when run in `cwd` by these helpers. */
export const dataFolder = (cwd: string) => join(cwd, 'engram')

/** A stream that keeps what is written to it, as the CLI's stdout or stderr in a test. */
class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

/**
 * Runs the CLI in this process through `main(argv, io)`: the same code as the binary, with pipes for
 * streams (not a terminal), `input` on stdin, `env` as the whole environment and `cwd` as the working folder.
 */
export async function engram(
  args: string[],
  options: {
    cwd?: string
    env?: Record<string, string>
    input?: string
    columns?: number
    /** stderr claims to be a terminal (progress is drawn there), stdout stays a pipe. */
    ttyStderr?: boolean
  } = {},
): Promise<RunResult> {
  const stdout = Object.assign(new Capture(), { columns: options.columns })
  const stderr = Object.assign(new Capture(), { isTTY: options.ttyStderr })
  const stdin = Readable.from(options.input ? [options.input] : [])
  const code = await main(args, {
    stdout,
    stderr,
    stdin,
    env: cleanEnv(options.env, options.cwd),
    cwd: options.cwd ?? process.cwd(),
  })
  return { code, stdout: stdout.text, stderr: stderr.text }
}

/** Runs the CLI in-process and parses its --json stdout (fails with the stderr when it exits non-zero). */
export async function engramJson<T = Record<string, unknown>>(
  args: string[],
  options: Parameters<typeof engram>[1] = {},
): Promise<T> {
  const result = await engram([...args, '--json'], options)
  if (result.code !== 0) throw new Error(`engram ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

/** Runs the built `engram` binary (bin/engram.js under node, with `nodeArgs`) as a child process, in a pipe. */
export function engramBin(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; nodeArgs?: string[] } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
      cwd: options.cwd,
      env: cleanEnv(options.env, options.cwd),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? '')
  })
}

/** Opens the store at `path`, hands it to `use` and closes it. */
export async function withStore<T>(path: string, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ url: path })
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}

/** A session with Chinese text, a tool call and its result, usage of two purposes and a compression child. */
export async function seedConversation(path: string): Promise<{ parent: string; child: string }> {
  return withStore(path, async (store) => {
    const s = await store.createSession({
      source: 'cli',
      model: 'gpt-test',
      userId: 'alice',
      title: '后端选型 backend choice',
      systemPrompt: 'You are Engram.\nToday is Tuesday.',
    })
    await store.appendMessage(s.id, { role: 'user', content: '我们用 FastAPI 做后端', tokenCount: 12 })
    await store.appendMessage(s.id, {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'memory', arguments: '{"action":"add","content":"uses FastAPI -->"}' },
        },
      ],
    })
    await store.appendMessage(s.id, {
      role: 'tool',
      tool_call_id: 'call_1',
      name: 'memory',
      content: '{"ok":true}',
    })
    await store.appendMessage(s.id, { role: 'assistant', content: 'Noted: ```FastAPI``` is the backend.' })
    await store.recordUsage(s.id, {
      model: 'gpt-test',
      purpose: 'main',
      inputTokens: 1000,
      outputTokens: 200,
      costUsd: 0.012,
    })
    await store.recordUsage(s.id, {
      model: 'gpt-test',
      purpose: 'compression',
      inputTokens: 300,
      outputTokens: 60,
    })
    const child = await store.continueSession(s.id, {
      endReason: 'compression',
      messages: [{ role: 'user', content: '[summary] FastAPI 后端 chosen' }],
      episode: {
        summary: 'The team chose FastAPI for the 后端 (backend).',
        importance: 8,
        firstMessageId: 1,
        lastMessageId: 4,
      },
    })
    await store.appendMessage(child.session.id, {
      role: 'user',
      content: 'what about the database? PostgreSQL',
    })
    return { parent: s.id, child: child.session.id }
  })
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

export interface PtySession {
  /** Everything the terminal showed so far. */
  output(): string
  /** Types into the terminal (a line ends with \r, Ctrl-C is \x03). */
  type(text: string): void
  /** Waits until the output matches `pattern` after position `from` (default: anywhere). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>
  /** Resolves when the program has exited. */
  done: Promise<RunResult>
}

/**
 * Runs the built binary in a pseudo-terminal (util-linux `script`), so stdin and stdout are TTYs: colours,
 * raw-mode line editing and Ctrl-C behave as for a user.
 */
export function engramPty(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): PtySession {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(' ')
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: cleanEnv({ TERM: 'xterm-256color', COLUMNS: '120', LINES: '40', ...options.env }, options.cwd),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  const waiters: (() => void)[] = []
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk
    for (const wake of waiters.splice(0)) wake()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      for (const wake of waiters.splice(0)) wake()
      resolve({ code, stdout, stderr })
    })
  })
  return {
    output: () => stdout,
    type: (text) => child.stdin.write(text),
    async waitFor(pattern, timeoutMs = 600_000) {
      const deadline = Date.now() + timeoutMs
      while (!pattern.test(plain(stdout))) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`timed out waiting for ${pattern}; the terminal showed:\n${stdout}\n${stderr}`)
        }
        await new Promise<void>((wake) => {
          waiters.push(wake)
          setTimeout(wake, 200)
        })
      }
    },
    done,
  }
}

/** Removes ANSI escape sequences (colours, cursor moves) from terminal output. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g')
export const plain = (text: string) => text.replace(ANSI, '').replace(/\r/g, '')
