import { join } from 'node:path'
import stringWidth from 'string-width'
import { beforeAll, describe, expect, it } from 'vitest'
import { engram, engramJson, type Json, seedConversation, tempDir } from './helpers.ts'

const dir = tempDir()
const db = join(dir, 'engram.db')
let ids: { parent: string; child: string }

beforeAll(async () => {
  ids = await seedConversation(db)
})

/** The display column where `needle` starts on `line` (CJK characters are two columns wide). */
const columnOf = (line: string, needle: string) => stringWidth(line.slice(0, line.indexOf(needle)))

describe('engram sessions', () => {
  it('--json lists sessions newest first with the documented fields', async () => {
    const { sessions } = await engramJson<{ sessions: Record<string, unknown>[] }>(['sessions', '--db', db])
    expect(sessions.map((s) => s.id)).toEqual([ids.child, ids.parent])
    expect(sessions[1]).toMatchObject({
      source: 'cli',
      userId: 'alice',
      model: 'gpt-test',
      title: '后端选型 backend choice',
      endReason: 'compression',
      messageCount: 4,
      toolCallCount: 1,
      inputTokens: 1300,
      outputTokens: 260,
    })
    expect(sessions[0]).toMatchObject({ parentSessionId: ids.parent, endedAt: null })
    const filtered = await engramJson<{ sessions: unknown[] }>(['sessions', '--db', db, '--user', 'bob'])
    expect(filtered.sessions).toEqual([])
  })

  it('prints a table whose columns stay aligned with Chinese titles (display width)', async () => {
    const { code, stdout, stderr } = await engram(['sessions', '--db', db])
    expect(code).toBe(0)
    expect(stderr).toBe('')
    const lines = stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^ID\s+STARTED\s+SOURCE\s+MODEL\s+MSGS\s+TOKENS\s+TITLE OR FIRST MESSAGE$/)
    const titleColumn = columnOf(lines[0] as string, 'TITLE')
    for (const line of lines.slice(1)) {
      expect(columnOf(line, '后端选型')).toBe(titleColumn)
      expect(line).toContain('just now')
    }
    expect(stdout).not.toContain('\u001b[')
  })

  it('refuses a bad --limit as a usage error (exit 2) in one line', async () => {
    const result = await engram(['sessions', '--db', db, '--limit', 'ten'])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      'engram: --limit must be a whole number from 1 to 1000 (got "ten").',
    ])
  })
})

describe('engram show', () => {
  it('--json gives the session, its lineage, messages with tool calls, episodes and usage', async () => {
    const shown = await engramJson<Record<string, Json>>(['show', ids.parent.slice(0, 8), '--db', db])
    expect(shown.session.id).toBe(ids.parent)
    expect(shown.session.systemPrompt).toBe('You are Engram.\nToday is Tuesday.')
    expect(shown.lineage.map((s: { id: string }) => s.id)).toEqual([ids.parent, ids.child])
    expect(shown.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(shown.messages[1].tool_calls[0].function.name).toBe('memory')
    expect(shown.messages[0].tokenCount).toBe(12)
    expect(shown.episodes[0]).toMatchObject({ importance: 8, firstMessageId: 1, lastMessageId: 4 })
    expect(shown.usage.byPurpose.compression.inputTokens).toBe(300)
  })

  it('prints the transcript with tool calls as one line each, and the lineage', async () => {
    const { code, stdout } = await engram(['show', 'latest', '--db', db])
    expect(code).toBe(0)
    expect(stdout).toContain(`Session ${ids.child}`)
    expect(stdout).toContain(`lineage ${ids.parent.slice(0, 8)} → ${ids.child.slice(0, 8)}`)
    const parent = await engram(['show', ids.parent, '--db', db])
    expect(parent.stdout).toMatch(/\n {2}→ memory\(\{"action":"add","content":"uses FastAPI -->"\}\)\n/)
    expect(parent.stdout).toContain('1,300 in / 260 out tokens')
  })

  it('fails with exit 1 and the fix when no session matches', async () => {
    const result = await engram(['show', 'zzzz', '--db', db])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      'engram: No session has an id starting with "zzzz". List the sessions with `engram sessions`.\n',
    )
    const json = await engram(['show', 'zzzz', '--db', db, '--json'])
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        code: 'SESSION_NOT_FOUND',
        message: 'No session has an id starting with "zzzz". List the sessions with `engram sessions`.',
      },
    })
  })
})

describe('engram search', () => {
  it('finds Chinese and English text, episodes first, as --json', async () => {
    const chinese = await engramJson<{ query: string; hits: Record<string, unknown>[] }>([
      'search',
      '后端',
      '--db',
      db,
    ])
    expect(chinese.query).toBe('后端')
    expect(chinese.hits[0]).toMatchObject({ kind: 'episode', sessionId: ids.parent })
    expect(chinese.hits.some((h) => h.kind === 'message' && String(h.snippet).includes('«后端»'))).toBe(true)
    const english = await engramJson<{ hits: Record<string, unknown>[] }>([
      'search',
      'PostgreSQL',
      '--db',
      db,
      '--role',
      'user',
    ])
    expect(english.hits).toHaveLength(1)
    expect(english.hits[0]).toMatchObject({ sessionId: ids.child, role: 'user' })
  })

  it('accepts any text as a query and refuses an unknown role as a usage error', async () => {
    const odd = await engramJson<{ hits: unknown[] }>(['search', '"C++ AND (', '--db', db])
    expect(Array.isArray(odd.hits)).toBe(true)
    const bad = await engram(['search', 'x', '--role', 'robot', '--db', db])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--role must be one of user, assistant, tool, system')
    // An empty query is a mistake on the command line, not a search that found nothing.
    for (const empty of ['', '   ']) {
      const none = await engram(['search', empty, '--db', db])
      expect(none.code).toBe(2)
      expect(none.stdout).toBe('')
      expect(none.stderr).toContain('search needs words to look for (got an empty query)')
    }
  })
})

describe('engram usage', () => {
  it('reports by purpose and model and flags auxiliary work above 20% of main', async () => {
    const summary = await engramJson<Record<string, Json>>(['usage', '--db', db])
    expect(summary.mainTokens).toBe(1200)
    expect(summary.auxiliaryTokens).toBe(360)
    expect(summary.auxiliaryRatio).toBeCloseTo(0.3)
    expect(summary.withinRule).toBe(false)
    expect(summary.report.byModel['gpt-test'].calls).toBe(2)
    const { stdout } = await engram(['usage', '--db', db])
    expect(stdout).toContain('✗ auxiliary tokens are 30.0% of main, above the 20% rule of the Hermes design')
    const one = await engramJson<Record<string, Json>>(['usage', '--db', db, '--session', ids.child])
    expect(one).toMatchObject({ sessionId: ids.child, mainTokens: 0, auxiliaryRatio: null, withinRule: null })
  })
})

describe('command line errors', () => {
  it('exits 2 for an unknown command or option, 0 for --help', async () => {
    const unknown = await engram(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(
      "engram: unknown command 'frobnicate'. Run `engram --help` for the commands and options.\n",
    )
    expect((await engram(['sessions', '--nope'])).code).toBe(2)
    const help = await engram(['--help'])
    expect(help.code).toBe(0)
    for (const command of [
      'chat',
      'demo',
      'sessions',
      'show',
      'search',
      'memory',
      'usage',
      'export',
      'import',
      'prune',
      'reindex',
      'migrate',
      'doctor',
      'eval',
      'init',
    ]) {
      expect(help.stdout).toContain(`  ${command}`)
    }
  })

  it('names a bad config key in one line and exits 1', async () => {
    const cwd = tempDir()
    const { writeFileSync } = await import('node:fs')
    writeFileSync(join(cwd, 'engram.toml'), '[context_compressor]\ntrigger_ratio = 2\n')
    const result = await engram(['sessions'], { cwd })
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain(
      'context_compressor.trigger_ratio must be a number greater than 0 and at most 1 (got 2)',
    )
  })
})
