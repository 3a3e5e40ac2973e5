import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, cleanEnv, engram, engramPty, plain, seedConversation, tempDir, withStore } from './helpers.ts'

// The terminal cases start the built binary in a pseudo-terminal; the machine may be busy.

const dir = tempDir()
const seeded = join(dir, 'seeded.db')

beforeAll(async () => {
  await seedConversation(seeded)
})

describe('on a terminal', () => {
  it('colours tables and respects NO_COLOR; piped output has no colour', async () => {
    const tty = await engramPty(['sessions', '--db', seeded]).done
    expect(tty.code).toBe(0)
    expect(tty.stdout).toContain('\u001b[1mID')
    expect(plain(tty.stdout)).toMatch(/ID\s+STARTED\s+SOURCE/)
    const noColor = await engramPty(['sessions', '--db', seeded], { env: { NO_COLOR: '1' } }).done
    expect(noColor.stdout).not.toContain('\u001b[1m')
    expect(noColor.stdout).toMatch(/ID\s+STARTED\s+SOURCE/)
    const piped = await engram(['sessions', '--db', seeded], { env: { TERM: 'xterm-256color' } })
    expect(piped.stdout).not.toContain('\u001b[')
  })

  it('shows a progress bar for export and import on a terminal, and nothing when piped', async () => {
    const file = join(dir, 'progress.jsonl')
    const exported = await engramPty(['export', 'latest', '--format', 'jsonl', '-o', file, '--db', seeded])
      .done
    expect(exported.stdout).toMatch(/Exporting \[.*\] 0\/\d+/)
    const imported = await engramPty(['import', file, '--db', join(dir, 'progress.db')]).done
    expect(imported.stdout).toMatch(/Importing: \d+ sessions?, \d+ messages/)
    expect(plain(imported.stdout)).toContain('Imported 2 session(s) and 6 messages')
    const piped = await engram(['import', file, '--db', join(dir, 'progress-piped.db')])
    expect(piped.stderr).toBe('')
    expect(piped.stdout).toBe(
      `Imported 2 session(s) and 6 messages from ${file}; 0 already present, skipped.\n`,
    )
  })

  it('chats with the offline model, leaves on Ctrl-C at the prompt, and --resume latest continues the session', async () => {
    const db = join(dir, 'chat.db')
    const cwd = tempDir()
    const first = engramPty(['chat', '--db', db], { cwd })
    await first.waitFor(/you ›/)
    first.type('remember that the deploy target is fly.io\r')
    await first.waitFor(/Saved to memory: the deploy target is fly\.io/)
    expect(first.output()).toContain('thinking…')
    expect(plain(first.output())).toContain(
      '→ memory({"target":"memory","action":"add","content":"the deploy target is fly.io"})',
    )
    await first.waitFor(/you ›[\s\S]*you ›/)
    first.type('\u0003')
    const ended = await first.done
    expect(ended.code).toBe(0)
    expect(plain(ended.stdout)).toMatch(
      // No engram on PATH here: the launcher's path, which runs from any folder (printed-commands.test.ts).
      /Saved in session [0-9a-f]{8}\. Continue with `(engram|node \S+) chat --db \S+ --resume latest`\./,
    )

    const second = engramPty(['chat', '--db', db, '--resume', 'latest'], { cwd })
    await second.waitFor(/Resumed session [0-9a-f]{8} \(4 messages/)
    await second.waitFor(/you ›/)
    second.type('/memory\r')
    await second.waitFor(/1\. the deploy target is fly\.io/)
    second.type('hello again\r')
    await second.waitFor(/Noted: "hello again"/)
    // A bracketed paste of two lines is one turn, sent by the Enter after it.
    second.type('\u001b[200~first pasted line\rsecond pasted line\u001b[201~\r')
    await second.waitFor(/Noted: "first pasted line/)
    second.type('/exit\r')
    expect((await second.done).code).toBe(0)

    await withStore(db, async (store) => {
      const sessions = await store.listSessions()
      expect(sessions).toHaveLength(1)
      const messages = await store.getMessages(sessions[0]?.id as string)
      expect(messages.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ])
      expect(messages[4]?.content).toBe('hello again')
      expect(messages[6]?.content).toBe('first pasted line\nsecond pasted line')
      // Ctrl-C ended it, --resume reopened it, and the resumed chat's exit is its end now.
      expect(sessions[0]?.endReason).toBe('user_exit')
    })
  })
})

/** An OpenAI-compatible endpoint that streams its answer slowly, one word every 150 ms. */
function slowServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'slow-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      res.write(chunk({ role: 'assistant', content: '' }))
      let i = 0
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer)
        i++
        if (i > 60) {
          clearInterval(timer)
          res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`)
          return
        }
        res.write(chunk({ content: `word${i} ` }))
      }, 150)
      res.on('close', () => clearInterval(timer))
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }),
    ),
  )
}

describe('Ctrl-C during an answer', () => {
  let slow: { server: Server; url: string }
  beforeAll(async () => {
    slow = await slowServer()
  })
  afterAll(() => slow.server.close())

  it('stops the streaming answer, keeps what was said, and stays in the REPL', async () => {
    const db = join(dir, 'slow.db')
    const chat = engramPty(['chat', '--db', db], {
      cwd: tempDir(),
      env: {
        OPENAI_API_KEY: 'sk-test-not-a-real-key',
        OPENAI_BASE_URL: slow.url,
        HERMES_MODEL: 'slow-model',
      },
    })
    await chat.waitFor(/you ›/)
    chat.type('tell me a long story\r')
    await chat.waitFor(/word3 /)
    chat.type('\u0003')
    await chat.waitFor(/\(stopped; what was said is saved\)/)
    chat.type('/exit\r')
    const result = await chat.done
    expect(result.code).toBe(0)
    expect(plain(result.stdout)).not.toContain('word60')
    expect(plain(result.stdout)).not.toContain('sk-test-not-a-real-key')
    await withStore(db, async (store) => {
      const [session] = await store.listSessions()
      expect(session?.model).toBe('slow-model')
      const messages = await store.getMessages(session?.id as string)
      expect(messages[0]).toMatchObject({ role: 'user', content: 'tell me a long story' })
      expect(messages[1]?.role).toBe('assistant')
      expect(String(messages[1]?.content)).toMatch(/^word1 word2 word3 .*\[interrupted\]$/)
    })
  })
})

describe('SIGTERM', () => {
  it('ends the chat and its session with the reason terminated', async () => {
    const db = join(dir, 'term.db')
    const child = spawn(process.execPath, [BIN, 'chat', '--db', db], {
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    const answered = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        stdout += chunk
        if (stdout.includes('Noted:')) resolve()
      }),
    )
    child.stdin.write('hello there\n')
    await answered
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
    child.kill('SIGTERM')
    expect(await closed).toBe(0)
    await withStore(db, async (store) => {
      const [session] = await store.listSessions()
      expect(session?.endReason).toBe('terminated')
    })
  })
})
