import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig, MemoryFiles, maskUrl } from '@engram/agent'
import { openStore, type Store } from '@engram/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type PostgresServer, startPostgres } from '../../../packages/core/test/postgres-server.ts'
import { pastable } from '../src/output.ts'
import { createUiApp } from '../src/ui/app.ts'
import { resumeCommand } from '../src/ui/session-page.ts'
import { engram, tempDir } from './helpers.ts'

/**
 * The page against what an attacker or a large session brings: values pasted into a shell, secrets in the
 * database url, multi-megabyte messages, malformed addresses, ids that are not URL-safe. In-process requests
 * to the hono app over a real SQLite store; the commands the page offers are run by a real bash.
 */
const dir = tempDir('engram-ui-hardening-')
const db = join(dir, 'engram.db')
const TOKEN = 'a-token-for-these-tests'
const BASE = '/u-test/'
const PORT = 9
let store: Store

function app(options: { database?: string; allowEdit?: boolean } = {}) {
  const config = loadConfig({ env: {}, cwd: dir })
  return createUiApp({
    store,
    memory: new MemoryFiles(config.memoryFiles),
    config,
    allowEdit: options.allowEdit ?? false,
    database: options.database ?? db,
    token: TOKEN,
    basePath: BASE,
    port: () => PORT,
    remoteAddress: () => '127.0.0.1',
  })
}

/**
 * A GET of `path` (relative to the base path, as the page's links are) with the cookie a browser would send,
 * to `host`: the request's URL names the same host, as a node server derives it from the Host header.
 */
async function get(ui: ReturnType<typeof app>, path: string, host = `127.0.0.1:${PORT}`) {
  const url = new URL(path, `http://${host}${BASE}`)
  const response = await ui.request(url.href, {
    headers: { host, cookie: `engram_ui_${PORT}=${TOKEN}` },
  })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

/** The command a page's Copy button carries. */
const copied = (body: string) => unescapeHtml(/data-copy="([^"]*)"/.exec(body)?.[1] ?? '')

/** Where the commands run: a folder that must stay empty (nothing a command holds may execute). */
const runDir = join(dir, 'run')
mkdirSync(runDir)

/** The argv `engram` gets when bash runs `command` as pasted (engram is a function printing its arguments). */
function argvOf(command: string, env: Record<string, string> = {}): string[] {
  const out = execFileSync('bash', ['-c', `engram() { printf '%s\\0' "$@"; }\n${command}`], {
    cwd: runDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  })
  return out.toString('utf8').split('\0').slice(0, -1)
}

/** `--name value`, or `--name=value` for a value that starts with a dash. */
const option = (name: string, value: string) => (value.startsWith('-') ? [`${name}=${value}`] : [name, value])

beforeAll(async () => {
  store = await openStore({ url: db })
})
afterAll(async () => {
  await store?.close()
})

describe('the resume command', () => {
  it('is exactly the intended argv in bash for any id, source and path, and runs nothing', () => {
    const hostile = fc.constantFrom(
      '$(touch pwned)',
      '`touch pwned`',
      "'; touch pwned; '",
      '"; touch pwned; "',
      '\\',
      ' ',
      '-',
      '--x',
      '*',
      '~',
      '!',
      '#',
      '中文',
      '$HOME',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion for bash, not a template
      '${IFS}',
      '\n',
      '\u001b[201~',
      '\u202e',
    )
    const word = fc
      .array(fc.oneof(hostile, fc.string({ minLength: 1, maxLength: 6 })), { minLength: 1, maxLength: 5 })
      .map((parts) => parts.join(''))
    // Many cases, one bash: each line sets the variable the command may read and runs the command.
    const cases = fc.sample(fc.tuple(word, word, word), { numRuns: 400 })
    const pasted = cases.filter((words) => words.every(pastable))
    expect(cases.filter((words) => !words.every(pastable)).map((w) => resumeCommand(...w))).toEqual(
      cases.filter((words) => !words.every(pastable)).map(() => null),
    )
    const env = Object.fromEntries(pasted.map(([path], i) => [`E${i}`, path]))
    const script = pasted
      .map((words, i) => `ENGRAM_DB_URL="$E${i}"; ${resumeCommand(...words)}; printf '\\001\\0'`)
      .join('\n')
    const runs = argvOf(script, env).join('\0').split('\u0001')
    pasted.forEach(([path, source, tip], i) => {
      // A path maskUrl would change (a url with a secret) is read from ENGRAM_DB_URL.
      const secret = maskUrl(path) !== path
      const expected = [
        'chat',
        ...(secret ? ['--db', path] : option('--db', path)),
        ...option('--source', source),
        ...option('--resume', tip),
      ]
      expect({
        words: [path, source, tip],
        argv: (runs[i] ?? '').replace(/^\0/, '').split('\0').slice(0, -1),
      }).toEqual({
        words: [path, source, tip],
        argv: expected,
      })
    })
    expect(pasted.length).toBeGreaterThan(100)
    expect(readdirSync(runDir)).toEqual([])
  })

  it('on the page, for an imported id that holds a command substitution, is quoted and runs nothing', async () => {
    const session = await store.createSession({
      id: '20260101_$(touch pwned)',
      source: "x'; touch pwned2; '",
    })
    const page = await get(app(), `sessions/${encodeURIComponent(session.id)}`)
    expect(page.status).toBe(200)
    const command = copied(page.body)
    expect(argvOf(command)).toEqual(['chat', '--db', db, '--source', session.source, '--resume', session.id])
    expect(readdirSync(runDir)).toEqual([])
  })

  it('is not offered for an id a terminal would act on when pasted (an escape that ends a bracketed paste)', async () => {
    const session = await store.createSession({ id: 'x\u001b[201~; touch pwned', source: 'cli' })
    const page = await get(app(), `sessions/${encodeURIComponent(session.id)}`)
    expect(page.status).toBe(200)
    expect(page.body).not.toContain('<button data-copy')
    expect(page.body).toContain('No command to resume the tip')
  })
})

describe('a database url with a password', () => {
  const url = 'postgres://engram:s3cret-pw-42@127.0.0.1:5432/engram'

  it('is shown masked on the session page, and the copied command reads it from ENGRAM_DB_URL', async () => {
    const session = await store.createSession({ source: 'cli' })
    const page = await get(app({ database: url }), `sessions/${session.id}`)
    expect(page.body).not.toContain('s3cret-pw-42')
    expect(page.body).toContain('postgres://***@127.0.0.1:5432/engram')
    const command = copied(page.body)
    expect(command).toContain('"$ENGRAM_DB_URL"')
    expect(argvOf(command, { ENGRAM_DB_URL: url })).toEqual([
      'chat',
      '--db',
      url,
      '--source',
      'cli',
      '--resume',
      session.id,
    ])
  })
})

describe('a session with multi-megabyte messages', () => {
  it('gives pages of bounded size, each long text one link away', async () => {
    const big = (c: string) => c.repeat(3_000_000)
    const session = await store.createSession({ source: 'cli' })
    await store.appendMessages(session.id, [
      { role: 'user', content: big('u') },
      {
        role: 'assistant',
        content: big('a'),
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'dump', arguments: big('g') } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: big('t') },
      ...Array.from({ length: 150 }, (_, i) => ({
        role: 'user' as const,
        content: `${i} ${'w'.repeat(20_000)}`,
      })),
    ])
    const ui = app()
    const first = await get(ui, `sessions/${session.id}`)
    expect(first.status).toBe(200)
    // 100 messages a page, 1,200 characters of each: well under 400 KB, against 12 MB of text held.
    expect(Buffer.byteLength(first.body)).toBeLessThan(400_000)
    const links = [...first.body.matchAll(/href="([^"]*\/messages\/\d+[^"]*)"/g)].map((m) =>
      unescapeHtml(m[1] ?? ''),
    )
    const texts = await Promise.all(links.slice(0, 4).map((link) => get(ui, link)))
    expect(texts.map((t) => t.status)).toEqual([200, 200, 200, 200])
    expect(texts[0]?.body).toBe(big('u'))
    expect(texts[1]?.body).toBe(big('a'))
    expect(JSON.parse(texts[2]?.body ?? '')[0].function.arguments).toBe(big('g'))
    expect(texts[3]?.body).toBe(big('t'))
    const next = unescapeHtml(/href="([^"]*)" rel="next"/.exec(first.body)?.[1] ?? '')
    const second = await get(ui, next)
    expect(second.status).toBe(200)
    expect(Buffer.byteLength(second.body)).toBeLessThan(400_000)
    expect(second.body).toContain('149 www')
  })
})

describe('stored markup in a search snippet', () => {
  it('is shown as text: a stored <script> or event handler never becomes markup, the match is still marked', async () => {
    const session = await store.createSession({ source: 'cli', title: 'markup' })
    const stored = [
      'the zanzibarmarker note <script>alert("xss")</script> and <img src=x onerror=alert(1)> end',
      '<script>zanzibarmarker()</script>',
    ]
    for (const content of stored) await store.appendMessage(session.id, { role: 'user', content })
    const page = await get(app(), 'search?q=zanzibarmarker')
    expect(page.status).toBe(200)
    // Both messages are hits, their snippets on the page with the match marked.
    expect(page.body.match(/<mark>zanzibarmarker<\/mark>/g)).toHaveLength(2)
    // The page's own script element is the only one; the stored ones are escaped text.
    expect(page.body.match(/<script/gi)).toHaveLength(1)
    expect(page.body).not.toContain('<img')
    expect(page.body).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;')
    expect(page.body).toContain('&lt;script&gt;<mark>zanzibarmarker</mark>()&lt;/script&gt;')
  })
})

describe('addresses', () => {
  it('a malformed cursor is a 400 page saying so, with nothing on stderr', async () => {
    const session = await store.createSession({ source: 'cli' })
    const stderr = vi.spyOn(process.stderr, 'write')
    const consoleError = vi.spyOn(console, 'error')
    try {
      for (const path of [`sessions/${session.id}?cursor=%%%not-a-cursor`, '?cursor=garbage']) {
        const page = await get(app(), path)
        expect(page.status).toBe(400)
        expect(page.body).toContain('cursor')
      }
      expect(stderr).not.toHaveBeenCalled()
      expect(consoleError).not.toHaveBeenCalled()
    } finally {
      stderr.mockRestore()
      consoleError.mockRestore()
    }
  })

  it('shows no edit forms on a read-only server whatever the address says', async () => {
    const page = await get(app(), 'memory?allowEdit=1&allowEdit=true')
    expect(page.status).toBe(200)
    expect(page.body).not.toContain('<form method="post"')
  })

  it('refuses a Host header that names another port', async () => {
    expect((await get(app(), './', `127.0.0.1:${PORT + 1}`)).status).toBe(403)
    expect((await get(app(), './', `localhost:${PORT + 1}`)).status).toBe(403)
    expect((await get(app(), './')).status).toBe(200)
  })

  it('links to sessions whose ids hold ?, #, /, % or dots, and the links work', async () => {
    const ids = ['q?x=1', 'h#frag', 'a/b/../c', '%zz%2F', '..', '.', 'sp ace&amp']
    for (const id of ids) await store.createSession({ id, source: 'links', title: `title of ${id}` })
    const ui = app()
    const list = await get(ui, '?source=links')
    const hrefs = [...list.body.matchAll(/<a href="([^"]*)"><code>/g)].map((m) => unescapeHtml(m[1] ?? ''))
    expect(hrefs).toHaveLength(ids.length)
    const titles = await Promise.all(
      hrefs.map(async (href) => {
        const page = await get(ui, href)
        expect(page.status).toBe(200)
        return unescapeHtml(/<p>(title of [^<]*) <span/.exec(page.body)?.[1] ?? '')
      }),
    )
    expect(titles.sort()).toEqual(ids.map((id) => `title of ${id}`).sort())
  })
})

describe('the chat’s exit line on PostgreSQL', () => {
  let server: PostgresServer
  beforeAll(async () => {
    server = await startPostgres()
  })
  afterAll(() => server?.stop())

  it('names the database as "$ENGRAM_DB_URL" and shows it masked, never the password', async () => {
    // The test server trusts 127.0.0.1: the password is accepted and ignored, as a managed server's would be checked.
    const url = server.url.replace('postgres@', 'postgres:s3cret-pw-42@')
    const chat = await engram(['chat', '--db', url], { cwd: dir, input: 'hello\n' })
    expect(chat.code).toBe(0)
    expect(`${chat.stdout}${chat.stderr}`).not.toContain('s3cret-pw-42')
    const command = /Continue with `([^`]*)`/.exec(chat.stderr)?.[1] ?? ''
    expect(command).toBe('engram chat --db "$ENGRAM_DB_URL" --resume latest')
    expect(chat.stderr).toContain(`with ENGRAM_DB_URL set to \`${maskUrl(url)}\``)
    expect(argvOf(command, { ENGRAM_DB_URL: url })).toEqual(['chat', '--db', url, '--resume', 'latest'])
  })
})

describe('engram doctor and CJK fonts', () => {
  it('warns when fontconfig knows no Chinese font and a browser is here, and says which package to install', async () => {
    // A real fontconfig limited to DejaVu (no CJK glyphs), as on a stock Debian without fonts-noto-cjk.
    const conf = join(dir, 'fonts.conf')
    writeFileSync(
      conf,
      `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${join(dir, 'fc-cache')}</cachedir></fontconfig>`,
    )
    const bare = await engram(['doctor', '--db', db], { cwd: dir, env: { FONTCONFIG_FILE: conf } })
    expect(bare.stdout).toMatch(/! fonts: no font with Chinese, Japanese or Korean glyphs/)
    expect(bare.stdout).toContain('apt-get install fonts-noto-cjk')
    // This machine has fonts-noto-cjk: no warning.
    const fine = await engram(['doctor', '--db', db], { cwd: dir })
    expect(fine.stdout).not.toContain('fonts:')
    expect(fine.code).toBe(bare.code)
  })
})
